import type { PushDestination, PushOutcome, Transport } from './transport.js';

/**
 * Each destination to the transport its device registered with: Web Push for a subscription,
 * APNs for a device token. The worker sees one transport.
 */
export class TransportByDevice implements Transport {
  readonly #apns: Transport;
  readonly #webPush: Transport;

  constructor(transports: { apns: Transport; webPush: Transport }) {
    this.#apns = transports.apns;
    this.#webPush = transports.webPush;
  }

  push(destination: PushDestination): Promise<PushOutcome> {
    return destination.webPush ? this.#webPush.push(destination) : this.#apns.push(destination);
  }

  async close(): Promise<void> {
    await Promise.all([this.#apns.close(), this.#webPush.close()]);
  }
}
