import { CLIENT_DEVICE_ID_PATTERN, canonicalLinkCode } from './contract/link.js';
import type { InactiveReason } from './contract/push-failures.js';
import type { Platform } from './contract/records.js';
import { FoxbellError, ValidationError } from './errors.js';
import { type HttpRequest, newTransport, send, type Transport } from './internal/request.js';
import { ATTEMPT_TIMEOUT_MS, MAX_RETRIES, type RetryInfo } from './retry.js';

// An app that shows its device says why it is inactive in the contract's words.
export { type InactiveReason, type InWords, inactiveInWords } from './contract/push-failures.js';

/**
 * The person's side of Foxbell, for an app on their device (the Foxbell web app is one): link
 * itself with a code, read the inbox, report what was opened and cleared, approve another
 * device's code, rename itself, leave. Reads are retried as the client's calls are; changes are
 * sent once, so an approval that went through is never made twice.
 */

/** What a browser's `PushSubscription.toJSON()` gives. */
export interface WebPushSubscriptionJSON {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

/** Where the device's pushes go: a Web Push subscription, or an APNs device token. */
export type PushAddress = { webPush: WebPushSubscriptionJSON } | { pushToken: string };

export interface LinkRequestInput {
  /** The app's own id for itself: 8 to 64 of A-Z a-z 0-9 _ -, made once per installation. */
  deviceId: string;
  name: string;
  platform: Platform;
  inAuto?: boolean;
  push: PushAddress;
  /** Switching accounts: this device's key for the account it leaves, as proof. */
  source?: { deviceKey: string };
  /** `refuse` (the default): not while the old account still has tokens or other devices. */
  sourceInUse?: 'refuse' | 'leave';
}

/** A link request as made: show `code` to the person; keep `id` and `secret` to poll. */
export interface LinkRequest {
  id: string;
  code: string;
  secret: string;
  expiresAt: string;
}

/** A device as the service shows it. */
export interface DeviceRecord {
  id: string;
  name: string;
  platform: Platform;
  device_id?: string;
  /**
   * The push provider that reaches it, where the provider names itself (`web_push`); absent for a
   * device registered with a push token. Open: a server with another provider shows its name.
   */
  transport?: 'web_push' | (string & {});
  in_auto: boolean;
  /** False once its push service said its subscription is gone: register a new one (`update`). */
  active: boolean;
  /** Why it is not active (`inactiveInWords` says it); absent while it is, and from older servers. */
  inactive_reason?: InactiveReason | (string & {});
  created_at: string;
  /** When its key was last used (to the minute); a Web Push device unseen for long is `stale`. */
  last_seen_at?: string | null;
  stale?: boolean;
}

export interface LinkStatus {
  state: 'pending' | 'approved' | 'cancelled' | 'expired' | 'superseded';
  expiresAt: string;
  /** On the first read after approval only: keep them, they are not shown again. */
  linked?: { device: DeviceRecord; deviceKey: string; accountId: string };
}

/** One notification of the inbox, as stored. */
export interface InboxItem {
  id: string;
  sender: string;
  message: string;
  created_at: string;
  [field: string]: unknown;
}

export interface FoxbellDeviceOptions {
  /** The service's address, e.g. `location.origin` in the web app. */
  baseUrl: string;
  /** The device key, once the device is linked. */
  deviceKey?: string | undefined;
  /** The device's id (`dev_…`), once linked: reports are made for it. */
  deviceId?: string | undefined;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /**
   * Told about each retry of a read before its wait: an app can say at once that the service
   * does not respond (a proxy's 502, no connection) while the read goes on trying.
   */
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

export class FoxbellDevice {
  readonly baseUrl: string;
  readonly deviceId: string | undefined;
  // Private: the key never shows in util.inspect, JSON.stringify or an error.
  readonly #key: string | undefined;
  readonly #reads: Transport;
  readonly #writes: Transport;

  constructor(options: FoxbellDeviceOptions) {
    const url = URL.parse(options.baseUrl);
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
      throw new FoxbellError('invalid_config', 'The base URL must be an http(s) address without user info');
    }
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.deviceId = options.deviceId;
    this.#key = options.deviceKey;
    this.#reads = newTransport(this.baseUrl, {
      fetch: options.fetch,
      maxRetries: MAX_RETRIES,
      timeoutMs: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
      random: Math.random,
      onRetry: options.onRetry,
      log: undefined,
      // Reads wait at most 1, 2 and 4 s, or a 503's Retry-After, which the app shows itself.
      announceLongWait: undefined,
      hooks: undefined,
    });
    this.#writes = { ...this.#reads, maxRetries: 0 };
  }

  /** The server's VAPID key, for `pushManager.subscribe({ applicationServerKey })`. */
  async webPushKey(): Promise<string> {
    return ((await this.#json('GET', 'v1/web-push/key')) as { public_key: string }).public_key;
  }

  /** Asks to be linked: the response's `code` is what the person approves. */
  async requestLink(input: LinkRequestInput): Promise<LinkRequest> {
    if (!CLIENT_DEVICE_ID_PATTERN.test(input.deviceId)) {
      throw new ValidationError({
        code: 'invalid_field',
        field: 'device_id',
        message: 'device_id must be 8 to 64 of A-Z a-z 0-9 _ -',
      });
    }
    const body = {
      device_id: input.deviceId,
      name: input.name,
      platform: input.platform,
      ...(input.inAuto === undefined ? {} : { in_auto: input.inAuto }),
      ...pushFields(input.push),
      ...(input.source === undefined ? {} : { source: { device_key: input.source.deviceKey } }),
      ...(input.sourceInUse === undefined ? {} : { source_in_use: input.sourceInUse }),
    };
    const made = (await this.#json('POST', 'v1/link-requests', { body })) as Record<string, string>;
    return {
      id: made.id as string,
      code: made.code as string,
      secret: made.secret as string,
      expiresAt: made.expires_at as string,
    };
  }

  /** A link request's state; once approved, the first read carries the device key. */
  async pollLink(link: Pick<LinkRequest, 'id' | 'secret'>): Promise<LinkStatus> {
    const read = (await this.#json('GET', `v1/link-requests/${encodeURIComponent(link.id)}`, {
      credential: link.secret,
    })) as Record<string, unknown>;
    return {
      state: read.state as LinkStatus['state'],
      expiresAt: read.expires_at as string,
      ...(typeof read.device_key === 'string'
        ? {
            linked: {
              device: read.device as DeviceRecord,
              deviceKey: read.device_key,
              accountId: read.account_id as string,
            },
          }
        : {}),
    };
  }

  async cancelLink(link: Pick<LinkRequest, 'id' | 'secret'>): Promise<void> {
    await this.#json('DELETE', `v1/link-requests/${encodeURIComponent(link.id)}`, {
      credential: link.secret,
    });
  }

  /** Approves another device's code for this device's account. */
  async approve(code: string): Promise<DeviceRecord> {
    if (canonicalLinkCode(code) === undefined) {
      throw new ValidationError({
        code: 'invalid_field',
        field: 'code',
        message: 'code is not a link code (XXXX-XXXX)',
      });
    }
    const approved = (await this.#json('POST', 'v1/link-approvals', {
      body: { code },
      credential: this.#keyOf(),
    })) as {
      device: DeviceRecord;
    };
    return approved.device;
  }

  /** A page of the account's inbox, newest first; `nextCursor` reads the next one. */
  async inbox(
    page: { cursor?: string; limit?: number } = {},
  ): Promise<{ items: InboxItem[]; nextCursor: string | null }> {
    const query = new URLSearchParams();
    if (page.cursor !== undefined) query.set('cursor', page.cursor);
    if (page.limit !== undefined) query.set('limit', String(page.limit));
    const suffix = query.size > 0 ? `?${query}` : '';
    const read = (await this.#json('GET', `v1/inbox${suffix}`, { credential: this.#keyOf() })) as {
      items: InboxItem[];
      next_cursor: string | null;
    };
    return { items: read.items, nextCursor: read.next_cursor ?? null };
  }

  /** Reports that the person opened or cleared a notification on this device. */
  async report(notificationId: string, action: 'opened' | 'cleared'): Promise<void> {
    if (this.deviceId === undefined) {
      throw new FoxbellError(
        'invalid_config',
        'No deviceId: pass { deviceId } (the linked device’s id, dev_…)',
      );
    }
    await this.#json('POST', `v1/notifications/${encodeURIComponent(notificationId)}/events`, {
      body: { device_id: this.deviceId, action },
      credential: this.#keyOf(),
    });
  }

  /** This device as its account sees it: whether its push service still takes its pushes (`active`). */
  async me(): Promise<DeviceRecord> {
    return (await this.#json('GET', 'v1/device', { credential: this.#keyOf() })) as DeviceRecord;
  }

  /** Renames this device, or gives it a new push address (which makes it active again). */
  async update(change: { name?: string; inAuto?: boolean; push?: PushAddress }): Promise<DeviceRecord> {
    const body = {
      ...(change.name === undefined ? {} : { name: change.name }),
      ...(change.inAuto === undefined ? {} : { in_auto: change.inAuto }),
      ...(change.push === undefined ? {} : pushFields(change.push)),
    };
    return (await this.#json('PATCH', 'v1/device', { body, credential: this.#keyOf() })) as DeviceRecord;
  }

  /** Leaves the account: the device is removed and its key works no more. */
  async leave(): Promise<void> {
    await this.#json('DELETE', 'v1/device', { credential: this.#keyOf() });
  }

  #keyOf(): string {
    if (this.#key === undefined)
      throw new FoxbellError('invalid_config', 'No deviceKey: link the device first');
    return this.#key;
  }

  async #json(
    method: HttpRequest['method'],
    path: string,
    { body, credential }: { body?: unknown; credential?: string | undefined } = {},
  ): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (credential !== undefined) headers.authorization = `Bearer ${credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await send(method === 'GET' ? this.#reads : this.#writes, {
      method,
      path,
      headers,
      ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
    });
    return response.text === '' ? undefined : JSON.parse(response.text);
  }
}

function pushFields(push: PushAddress): Record<string, unknown> {
  return 'webPush' in push ? { web_push: push.webPush } : { push_token: push.pushToken };
}
