import type { FastifyRequest } from 'fastify';

const REDACTED = '<redacted>';

/**
 * Where a credential of ours starts (send tokens, account keys, device keys, poll secrets, the
 * dev admin key), in any case: from there to the end of its path segment all is hidden, however
 * the rest is spelled (a stray `%ZZ`, `.`, an overlong UTF-8 sequence), so a credential cut by an
 * odd character never shows its second half.
 */
const CREDENTIAL_PREFIX = /fox_(?:send|acct|dev|poll|admin)_/i;

/** Any long run of letters and digits: a secret of another shape, or one without its prefix. */
const LONG_RUN = /[A-Za-z0-9_-]{24,}/g;

/** The admin key has no prefix: a segment holding this many of its characters in a row is hidden whole. */
const SECRET_PIECE = 12;

/** Times a segment is percent-decoded at most: a prefix encoded twice (`fox%255Fsend_`) is found too. */
const DECODINGS = 3;

/**
 * Percent-decodes what is valid percent-encoding and leaves the rest, so that `%73end` is read as
 * `send` and `TOKEN%ZZ` still shows (and hides) its token. A run of escapes that is not UTF-8
 * (`%C0%AE`) has its ASCII bytes decoded and the others left as they came.
 */
function decodeOnce(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%[0-7][0-9A-Fa-f]/g, (byte) =>
        String.fromCharCode(Number.parseInt(byte.slice(1), 16)),
      );
    }
  });
}

/** `decodeOnce` until nothing changes, `DECODINGS` times at most: a log may show `%2525` as `%`. */
function decodeLeniently(text: string): string {
  let decoded = text;
  for (let time = 0; time < DECODINGS; time += 1) {
    const again = decodeOnce(decoded);
    if (again === decoded) break;
    decoded = again;
  }
  return decoded;
}

/** Whether `text` holds `secret`, or `SECRET_PIECE` characters of it in a row. */
function holdsPieceOf(text: string, secret: string): boolean {
  if (secret.length <= SECRET_PIECE) return text.includes(secret);
  for (let at = 0; at + SECRET_PIECE <= secret.length; at += 1) {
    if (text.includes(secret.slice(at, at + SECRET_PIECE))) return true;
  }
  return false;
}

/** One path segment as it came, decoded for the log with every credential in it hidden. */
function redactSegment(segment: string, secrets: readonly string[]): string {
  const decoded = decodeLeniently(segment);
  if (secrets.some((secret) => secret !== '' && holdsPieceOf(decoded, secret))) return REDACTED;
  const prefix = CREDENTIAL_PREFIX.exec(decoded);
  const shown = prefix ? `${decoded.slice(0, prefix.index)}${REDACTED}` : decoded;
  return shown.replace(LONG_RUN, REDACTED);
}

/**
 * A path (or one value of it) with every credential hidden, segment by segment: each segment is
 * split off before it is decoded, so an encoded `/` (`%2F`) cannot end a credential's segment
 * early. See `redactSegment`; `secrets` are the admin key.
 */
export function redactSecrets(path: string, secrets: readonly string[] = []): string {
  return path
    .split('/')
    .map((segment) => redactSegment(segment, secrets))
    .join('/');
}

/**
 * An id of ours (`ntf_…`, `dev_…`, `tok_…`, `lnk_…`): no credential has this shape (each starts
 * `fox_`), and an operator finds a person's notification by it.
 */
const ID_SHAPED = /^(?!fox_)[a-z]{2,5}_[A-Za-z0-9]{1,64}$/;

/**
 * The path of a request as a log line may show it: never the query string (a URL-token send
 * carries the notification's text there), never a credential. A matched route is written as its
 * pattern with its parameters filled in: the token parameter hidden, an id kept whole, anything
 * else credential-shaped hidden; a path no route matched (or one that did not parse) is decoded and
 * every credential-shaped part of it hidden, ids too.
 */
export function loggedPath(request: FastifyRequest, secrets: readonly string[]): string {
  const pattern = request.routeOptions.url;
  if (pattern !== undefined && request.is404 !== true) {
    const params = (request.params ?? {}) as Record<string, string>;
    return pattern.replace(/:(\w+)/g, (_, name: string) => {
      const value = params[name] ?? '';
      if (name === 'token' || secrets.includes(value)) return REDACTED;
      return ID_SHAPED.test(value) ? value : redactSecrets(encodeURIComponent(value), secrets);
    });
  }
  const url = request.raw.url ?? '';
  const query = url.indexOf('?');
  return redactSecrets(query === -1 ? url : url.slice(0, query), secrets);
}
