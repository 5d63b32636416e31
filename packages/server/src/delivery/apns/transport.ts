import { NO_RESPONSE, type PushDestination, type PushOutcome, type PushTransport } from '../transport.js';
import type { ApnsClient } from './client.js';
import { type ApnsTopics, pushRequestFor } from './push-request.js';
import { judgeApnsResponse } from './responses.js';

/** APNs as a transport: the push built for Apple, sent by the HTTP/2 client, its response judged. */
export class ApnsTransport implements PushTransport {
  readonly #client: ApnsClient;
  readonly #topics: ApnsTopics;

  constructor(client: ApnsClient, topics: ApnsTopics) {
    this.#client = client;
    this.#topics = topics;
  }

  async push(destination: PushDestination): Promise<PushOutcome> {
    const result = await this.#client.push(pushRequestFor(destination, this.#topics));
    if (result.kind === 'no_response') {
      // APNs' certificate is not trusted (--apns-ca), or its handshake failed: the same every time.
      if (result.tlsCode !== undefined) {
        return { ...NO_RESPONSE, verdict: 'failed_permanent', failure: 'tls', tlsCode: result.tlsCode };
      }
      return { ...NO_RESPONSE, error: result.error };
    }
    const outcome = judgeApnsResponse(result, destination.addressSince);
    // Our provider token was rejected as too old: the next push carries a new one.
    if (outcome.renewToken) this.#client.renewToken();
    return outcome;
  }

  warm(): Promise<void> {
    return this.#client.warm();
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}
