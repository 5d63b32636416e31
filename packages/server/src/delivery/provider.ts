import type { FastifyInstance } from 'fastify';
import type * as z from 'zod';
import type { PushAddress } from '../model/devices.js';
import type { PushTransport } from './transport.js';

/**
 * A push provider: one way to a device (APNs, Web Push), a room of delivery/ of its own. It owns
 * how a device registers with it, its settings, its keys and credentials, its payload and its
 * transport; the rest of the server knows providers only through this door, and by no name:
 * routing, the worker, the routes and the stores never branch on one. docs/architecture.md says
 * what adding one takes.
 */
export interface PushProvider {
  /** Its name, stored with each device it reaches (`apns`, `web-push`). */
  readonly id: string;
  readonly registration: Registration;
  /** Its pushes carry the device's unread count (`unread`), for its app's badge. */
  readonly countsUnread?: boolean;
  /**
   * Its push service may drop a device without a word (iOS's Web Push): one not seen for the
   * server's --device-stale-days is listed as `stale`.
   */
  readonly goesQuiet?: boolean;
  /** Routes of its own, registered with the API's (Web Push's key). */
  readonly routes?: (app: FastifyInstance) => Promise<void>;
  /** Its transport, opened by a process that delivers (an API-only process never opens one). */
  openTransport(): Promise<ProviderTransport>;
}

/**
 * How a device names this provider when it registers: the member of a registration body that
 * holds its address (`push_token`, `web_push`), the member's rule, and the address it names.
 * A body has exactly one provider's member.
 */
export interface Registration {
  readonly field: string;
  /** The member's rule: what it refuses is named by `field` and the member's own path. */
  readonly schema: z.ZodType;
  /**
   * The address a valid member names. `appUrl` is where the registering web app was served
   * from, when it was; `previous` the device's address before a change of its own.
   */
  address(value: never, context: { appUrl: string | null; previous?: PushAddress | undefined }): PushAddress;
  /** How a device's view names the provider (`transport: "web_push"`), when it does. */
  readonly shownAs?: string;
}

/** An open transport, and what the process should say of it. */
export interface ProviderTransport {
  transport: PushTransport;
  /** Said at start; a stand-in's at the first push it takes, since until then it changes nothing. */
  warning?: string | undefined;
  /** It reaches a stand-in (the built-in APNs simulator), not real devices: readiness says so. */
  standIn?: boolean;
}
