import type { FastifyInstance } from 'fastify';
import type * as z from 'zod';
import type { Clock } from '../kernel/clock.js';
import type { Setting, SettingValues } from '../kernel/settings.js';
import type { PushAddress } from '../model/devices.js';
import type { PushTransport } from './transport.js';

/**
 * A push provider: one way to a device (APNs, Web Push), a folder of delivery/ of its own. It owns
 * how a device registers with it, its settings, its keys and credentials, its payload and its
 * transport; the rest of the server knows providers only through this module and the registry
 * (delivery/providers.ts), and by no name: routing, the worker, the routes and the stores never
 * branch on one. docs/architecture.md says what adding one takes.
 */
export interface PushProvider {
  /** Its id, stored with each device it reaches (`apns`, `web-push`): its entry's. */
  readonly id: string;
  /** Its name for people (`APNs`, `Web Push`): its entry's. */
  readonly title: string;
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
  /** The member's rule: what it rejects is named by `field` and the member's own path. */
  readonly schema: z.ZodType;
  /**
   * The address a valid member names. `appUrl` is where the registering web app was served
   * from, when it was; `previous` the device's address before a change of its own.
   */
  address(value: never, context: { appUrl: string | null; previous?: PushAddress | undefined }): PushAddress;
  /** How a device's view names the provider (`transport: "web_push"`), when it does: its entry's. */
  readonly shownAs?: string | undefined;
}

/** An open transport, and what the process should say of it. */
export interface ProviderTransport {
  transport: PushTransport;
  /** Said at start; a stand-in's at the first push it takes, since until then it changes nothing. */
  warning?: string | undefined;
  /** It reaches a stand-in (the built-in APNs simulator), not real devices: readiness says so. */
  standIn?: boolean;
}

/** The part of the store a provider keeps keys in (Web Push's VAPID pair): the settings table. */
export interface KeyKeeper {
  getSetting(name: string): Promise<string | undefined>;
  settingOnce(name: string, value: string): Promise<string>;
}

/**
 * A push service the process runs in place of a provider's own (the built-in APNs simulator),
 * when the provider's settings ask for one. `Endpoint` is where its pushes go, in the provider's
 * terms.
 */
export interface StandIn<Endpoint = unknown> {
  /** The id of the provider it stands in for. */
  readonly provider: string;
  /** Starts it, when delivery opens the provider's transport (an API-only process never does). */
  start(): Promise<Endpoint>;
}

/** What a process makes a provider with, besides the provider's own config. */
export interface ProviderContext<StandInEndpoint = unknown> {
  clock: Clock;
  keeper: KeyKeeper;
  /** The stand-in the process runs for this provider, when its settings ask for one. */
  standIn?: StandIn<StandInEndpoint> | undefined;
}

/** A provider's code, loaded when a process makes the provider: the provider, with its entry's id and name. */
export interface ProviderMaker<Config, StandInEndpoint = unknown> {
  make(config: Config, context: ProviderContext<StandInEndpoint>): PushProvider;
}

/**
 * A push provider as the registry lists it (delivery/providers.ts): its id and name, its group of
 * foxbell-server's settings table (flags, variables, defaults, checks) with the config they make,
 * and its code, loaded only when a process makes the provider: reading the settings loads none of
 * it (no zod, no HTTP client).
 */
export interface ProviderEntry<
  Settings extends Record<string, Setting> = Record<string, Setting>,
  Config = unknown,
  StandInEndpoint = unknown,
> {
  /** Stored with each device it reaches, a label of the metrics, and its folder's name under delivery/. */
  readonly id: string;
  readonly title: string;
  /** The registration body's member a device names it by (`push_token`): its registration's `field`. */
  readonly member: string;
  /** How a device's view names it (`web_push`), when it does: its registration's `shownAs`. */
  readonly shownAs?: string;
  /**
   * When the member is one text (APNs' device token): its placeholder and help, for the operator's
   * `foxbell-server admin device add --<member>`.
   */
  readonly memberText?: { argument: string; help: string };
  readonly settings: Settings;
  /**
   * The group's values as the provider's config; what is wrong is added to `problems` (undefined
   * then, if there is no config to make). `server` is what of the server's own settings it reads.
   */
  configOf(values: SettingValues<Settings>, problems: string[], server: { dev: boolean }): Config | undefined;
  load(): Promise<ProviderMaker<Config, StandInEndpoint>>;
}

/** The config an entry's settings make. */
export type ConfigOf<Entry> = Entry extends { configOf(...args: never[]): infer Config }
  ? Exclude<Config, undefined>
  : never;
