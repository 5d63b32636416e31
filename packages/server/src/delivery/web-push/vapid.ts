import { createECDH } from 'node:crypto';
import type { KeyKeeper } from '../provider.js';

/** The server's VAPID key pair (RFC 8292), base64url: a P-256 public point and its private scalar. */
export interface VapidKeys {
  /** 65 bytes, uncompressed: what browsers take as `applicationServerKey`. */
  publicKey: string;
  /** 32 bytes. */
  privateKey: string;
}

/** Where the key pair is kept: the settings table, so every process of a deployment signs alike. */
const SETTING = 'web_push_vapid_keys';

/**
 * The deployment's key pair, made the first time any process asks and kept in the database; a
 * process reads it once. Push services tie each subscription to the key it was made with, so the
 * pair never changes by itself: a new one would silence every browser subscribed with the old.
 */
export class VapidKeySource {
  readonly #store: KeyKeeper;
  #keys: Promise<VapidKeys> | undefined;

  constructor(store: KeyKeeper) {
    this.#store = store;
  }

  keys(): Promise<VapidKeys> {
    this.#keys ??= this.#load().catch((error: unknown) => {
      // A database that did not respond this time may next time.
      this.#keys = undefined;
      throw error;
    });
    return this.#keys;
  }

  async #load(): Promise<VapidKeys> {
    const kept =
      (await this.#store.getSetting(SETTING)) ??
      (await this.#store.settingOnce(SETTING, JSON.stringify(newVapidKeys())));
    return JSON.parse(kept) as VapidKeys;
  }
}

function newVapidKeys(): VapidKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    publicKey: ecdh.getPublicKey('base64url', 'uncompressed'),
    // A scalar with leading zero bytes comes back shorter: the key is always 32 bytes.
    privateKey: Buffer.from(ecdh.getPrivateKey('hex').padStart(64, '0'), 'hex').toString('base64url'),
  };
}
