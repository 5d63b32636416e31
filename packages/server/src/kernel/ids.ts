import { randomFillSync } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random bytes are drawn from the CSPRNG in blocks: one call per request id would cost more than
 * the id is worth on a busy server. A block is used once, front to back, and then refilled.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

/**
 * `length` uniformly random letters and digits. Bytes of 248 and above are discarded (62 * 4 =
 * 248), so every character is equally likely: secrets carry their full 5.95 bits per character.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Digits in ASCII order, so that fixed-width numbers written with them sort as text does. */
const SORTED_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TIME_DIGITS = 8;

/** The last millisecond written, kept: a busy server makes many ids in each one. */
let lastTime = { ms: -1, digits: '' };

/** Milliseconds since 1970 as 8 base-62 digits (enough until the year 8888). */
function timeDigits(ms: number): string {
  if (ms === lastTime.ms) return lastTime.digits;
  let out = '';
  for (let rest = ms, i = 0; i < TIME_DIGITS; i++, rest = Math.floor(rest / 62)) {
    out = SORTED_DIGITS[rest % 62] + out;
  }
  lastTime = { ms, digits: out };
  return out;
}

export type IdPrefix = 'ntf' | 'req' | 'acct' | 'dev' | 'tok' | 'lnk';

/**
 * Whether `text` has the shape of an id with this prefix: the prefix, `_`, then letters and
 * digits (22 of them since 0.1.0; any count up to 64 is taken, so an id made another way still
 * reads). Checked before a store is asked: a NUL or a character PostgreSQL cannot store is not
 * something every database can even look up.
 */
export function isIdShaped(prefix: IdPrefix, text: string): boolean {
  return text.startsWith(`${prefix}_`) && ID_BODY.test(text.slice(prefix.length + 1));
}
const ID_BODY = /^[A-Za-z0-9]{1,64}$/;

/** Makes ids and secrets. Injected, so tests may make them predictable. */
/** The secrets the server makes: send tokens, account keys, device keys and link poll secrets. */
export type SecretKind = 'send' | 'acct' | 'dev' | 'poll';

export interface IdSource {
  /**
   * A public id, `<prefix>_` + 22 letters and digits: the creation time's 8, then 14 random ones
   * (83 bits). Ids made later sort later, so a new row's id lands at the end of its table's
   * index instead of on a random page of it: with random ids every commit rewrote a page of
   * each such index per row (docs/performance.md, send-throughput).
   */
  id(prefix: IdPrefix): string;
  /** A secret credential, `fox_<kind>_` + 32 letters and digits (190 random bits). */
  secret(kind: SecretKind): string;
}

export const randomIds: IdSource = {
  id: (prefix) => `${prefix}_${timeDigits(Date.now())}${randomBase62(22 - TIME_DIGITS)}`,
  secret: (kind) => `fox_${kind}_${randomBase62(32)}`,
};
