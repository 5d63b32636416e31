import { isIP } from 'node:net';
import { DEFAULT_LEASE_MS } from '../delivery/attempts.js';
import {
  PROVIDERS,
  type ProviderConfigs,
  type ProviderRegistry,
  type ProviderSettings,
  providerConfigs,
  providerSettings,
} from '../delivery/providers.js';
import { DEFAULT_LIMITS, type ServiceLimits } from '../kernel/limits.js';
import { readSettings, type Setting, type SettingValues, settingName, usageOf } from '../kernel/settings.js';
import type { DatabaseConfig } from '../store/open.js';
import { DEFAULT_POOL_SIZE, SCHEMA_NAME } from '../store/postgres/options.js';

/**
 * What `foxbell-server` runs with: its own settings, and each push provider's config under its key
 * in the registry (`apns`, `webPush`), made by the provider from its settings group.
 */
export type ServerConfig<Registry extends ProviderRegistry = typeof PROVIDERS> = OwnConfig &
  ProviderConfigs<Registry>;

/** The server's own part of its config: every setting but the providers'. */
export interface OwnConfig {
  /** `serve`: the API (and, unless `workers` is 0, delivery); `worker`: delivery only. */
  command: 'serve' | 'worker';
  port: number;
  host: string;
  /** Where dev mode keeps its secrets, and the SQLite database unless `database` says PostgreSQL. */
  dataDir: string;
  database: DatabaseConfig;
  adminKey: string | undefined;
  dev: boolean;
  limits: ServiceLimits;
  logLevel: string;
  /** Pushes in flight at once in this process; 0 runs the API only. */
  workers: number;
  /** On SIGTERM, how long to go on serving while not ready, before the stop proper. */
  drainMs: number;
  /** How long a lease on a push in flight lasts between its worker's renewals. */
  leaseMs: number;
  /** How a worker learns of new sends from other processes: the database's signal, or its poll alone. */
  queueWake: 'notify' | 'poll';
  /** Where to serve Prometheus metrics; undefined serves none. */
  metrics: ListenAddress | undefined;
  /** HTTPS on the API's port: PEM files, read at start and again on SIGHUP. */
  tls: { certFile: string; keyFile: string } | undefined;
  /** Peers (addresses or CIDR ranges) whose X-Forwarded-For names the client. */
  trustProxy: string[];
  /** The origin people reach this server at (`--public-url`), where the web app's pages are. */
  publicUrl: string | undefined;
}

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * An IPv4 or IPv6 address, or a CIDR range with a prefix its family can have (at most 32 or
 * 128 bits): what the proxy-address matcher behind `--trust-proxy` takes without throwing.
 */
export function isAddressOrRange(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** `HOST:PORT` (`[::1]:9100` for IPv6; port 0 picks a free one), or why it is not one. */
export function listenAddressOf(text: string): ListenAddress | string {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65_535)
    return 'must be HOST:PORT, such as 127.0.0.1:9464 ([::1]:9464 for IPv6; port 0 picks one)';
  return { host: (match[1] ?? match[2]) as string, port };
}

/**
 * Why `--public-url` is not the address of a server as people reach it: an `http:` or `https:`
 * URL of a scheme and host (and port), nothing else, since the web app is served at its `/app/`.
 */
export function publicUrlProblem(text: string): string | undefined {
  const url = URL.parse(text);
  const bare =
    url !== null &&
    ['http:', 'https:'].includes(url.protocol) &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '';
  return bare
    ? undefined
    : `must be this server's address as people reach it, a scheme and host only (https://push.example.com), not "${text}"`;
}

/** An admin key creates accounts: as hard to guess as the 190-bit secrets the server makes. */
export const ADMIN_KEY_MIN_LENGTH = 32;

/**
 * Why `key` cannot be a key, by a character none has: a key travels in an `Authorization: Bearer`
 * header, which carries visible ASCII and nothing else intact. Such a character is a key pasted
 * wrong, or a placeholder pasted as it is (the guide's `fox_acct_…`); said without the key.
 */
export function keyCharacterProblem(key: string): string | undefined {
  const odd = [...key].find((char) => char < '!' || char > '~');
  if (odd === undefined) return undefined;
  const code = odd.codePointAt(0) as number;
  const named =
    odd === ' '
      ? 'a space'
      : code < 0x20 || (code >= 0x7f && code < 0xa0)
        ? 'a control character'
        : `"${odd}" (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
  return `holds ${named}, which no key has`;
}

/**
 * The server's own settings, once each: its flag, variable, default, check and help. Each push
 * provider's group follows them in the table (serverSettings).
 */
const OWN_SETTINGS = {
  port: {
    flag: 'port',
    variable: 'FOXBELL_PORT',
    argument: 'N',
    type: 'integer',
    min: 0,
    max: 65_535,
    default: 8787,
    help: 'port to listen on; 0 picks a free one',
  },
  host: {
    flag: 'host',
    variable: 'FOXBELL_HOST',
    argument: 'HOST',
    type: 'text',
    default: '127.0.0.1',
    help: 'address to listen on',
  },
  data: {
    flag: 'data',
    variable: 'FOXBELL_DATA',
    argument: 'DIR',
    type: 'text',
    default: './.foxbell',
    help: 'directory of the embedded SQLite database',
  },
  database: {
    flag: 'database',
    variable: 'FOXBELL_DATABASE_URL',
    argument: 'URL',
    type: 'text',
    help: 'a postgres:// URL: PostgreSQL instead of SQLite, shared by any number of API and worker processes',
    // Not echoed back: the URL may hold a password.
    check: (url: string) =>
      /^postgres(ql)?:\/\//.test(url) ? undefined : 'must be a postgres:// or postgresql:// URL',
  },
  databaseSchema: {
    flag: 'database-schema',
    variable: 'FOXBELL_DATABASE_SCHEMA',
    argument: 'S',
    type: 'text',
    defaultText: "the connection's search_path, normally public",
    help: 'the schema for the tables, made when missing',
    check: (schema: string) =>
      SCHEMA_NAME.test(schema) ? undefined : `must be lowercase letters, digits and _, not "${schema}"`,
  },
  databasePool: {
    flag: 'database-pool',
    variable: 'FOXBELL_DATABASE_POOL',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 1000,
    default: DEFAULT_POOL_SIZE,
    help: 'connections this process opens at most',
  },
  adminKey: {
    flag: 'admin-key',
    variable: 'FOXBELL_ADMIN_KEY',
    argument: 'KEY',
    type: 'text',
    help: "the operator's key for admin routes",
    secret: true,
    check: (key: string) => {
      const odd = keyCharacterProblem(key);
      if (odd !== undefined) return `${odd} (make one: openssl rand -base64 32)`;
      return key.length >= ADMIN_KEY_MIN_LENGTH
        ? undefined
        : `must be at least ${ADMIN_KEY_MIN_LENGTH} characters (make one: openssl rand -base64 32)`;
    },
  },
  dev: {
    flag: 'dev',
    variable: 'FOXBELL_DEV',
    type: 'switch',
    help: 'seed a dev account, devices and token on first start',
  },
  ratePerToken: {
    flag: 'rate-per-token',
    variable: 'FOXBELL_RATE_PER_TOKEN',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 1e9,
    default: DEFAULT_LIMITS.perTokenPerMinute,
    help: 'sends per token per minute',
  },
  ratePerAccount: {
    flag: 'rate-per-account',
    variable: 'FOXBELL_RATE_PER_ACCOUNT',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 1e9,
    default: DEFAULT_LIMITS.perAccountPerMinute,
    help: 'sends per account per minute',
  },
  monthlyQuota: {
    flag: 'monthly-quota',
    variable: 'FOXBELL_MONTHLY_QUOTA',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 1e12,
    default: DEFAULT_LIMITS.perAccountPerMonth,
    help: 'sends per account per UTC month',
  },
  sendsInFlight: {
    flag: 'sends-in-flight',
    variable: 'FOXBELL_SENDS_IN_FLIGHT',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 1e6,
    default: DEFAULT_LIMITS.sendsInFlight,
    help: 'sends stored at once; past it, 503 at once',
  },
  linkCodeSeconds: {
    flag: 'link-code-seconds',
    variable: 'FOXBELL_LINK_CODE_SECONDS',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 600,
    default: DEFAULT_LIMITS.linkCodeMs / 1000,
    help: 'how long a link code can be approved',
  },
  deviceStaleDays: {
    flag: 'device-stale-days',
    variable: 'FOXBELL_DEVICE_STALE_DAYS',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 3650,
    default: DEFAULT_LIMITS.deviceStaleMs / 86_400_000,
    help: 'days a device may go unseen (its app not opened) before it is listed as stale, where its push service may drop it without a word',
  },
  logLevel: {
    flag: 'log-level',
    variable: 'FOXBELL_LOG_LEVEL',
    argument: 'LEVEL',
    type: 'choice',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    help: 'what the log records',
  },
  workers: {
    flag: 'workers',
    variable: 'FOXBELL_WORKERS',
    argument: 'N',
    type: 'integer',
    min: 0,
    max: 10_000,
    default: 64,
    help: 'pushes in flight at once',
  },
  noWorkers: {
    flag: 'no-workers',
    type: 'switch',
    help: 'serve the API only; run `foxbell-server worker` to deliver (or FOXBELL_WORKERS=0)',
  },
  leaseSeconds: {
    flag: 'lease-seconds',
    variable: 'FOXBELL_LEASE_SECONDS',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 3600,
    default: DEFAULT_LEASE_MS / 1000,
    help: 'how long a lease on a push in flight lasts between renewals (every third of it): how soon another worker takes the push over if this one dies',
  },
  drainSeconds: {
    flag: 'drain-seconds',
    variable: 'FOXBELL_DRAIN_SECONDS',
    argument: 'N',
    type: 'integer',
    min: 0,
    max: 60,
    default: 0,
    help: 'on SIGTERM, respond to /readyz with 503 and go on serving this long before stopping, so a load balancer sends requests elsewhere first (behind one: more than its health-check interval)',
  },
  queueWake: {
    flag: 'queue-wake',
    variable: 'FOXBELL_QUEUE_WAKE',
    argument: 'HOW',
    type: 'choice',
    choices: ['notify', 'poll'],
    default: 'notify',
    help: "how a worker hears of a send another process accepted: notify (PostgreSQL's LISTEN/NOTIFY, with the poll behind it) or poll (every 250 ms)",
  },
  tlsCert: {
    flag: 'tls-cert',
    variable: 'FOXBELL_TLS_CERT',
    argument: 'FILE',
    type: 'text',
    help: 'serve HTTPS with this PEM certificate chain (with --tls-key); read again on SIGHUP',
  },
  tlsKey: {
    flag: 'tls-key',
    variable: 'FOXBELL_TLS_KEY',
    argument: 'FILE',
    type: 'text',
    help: 'its PEM private key',
  },
  trustProxy: {
    flag: 'trust-proxy',
    variable: 'FOXBELL_TRUST_PROXY',
    argument: 'ADDRS',
    type: 'text',
    check: (value) => {
      const bad = value.split(',').find((part) => !isAddressOrRange(part.trim()));
      return bad === undefined
        ? undefined
        : `must be addresses or CIDR ranges, separated by commas (127.0.0.1,10.0.0.0/8), not "${bad.trim()}"`;
    },
    help: 'reverse proxies (addresses or CIDR ranges, by commas) whose X-Forwarded-For names the client in logs',
  },
  publicUrl: {
    flag: 'public-url',
    variable: 'FOXBELL_PUBLIC_URL',
    argument: 'URL',
    type: 'text',
    check: publicUrlProblem,
    help: "this server's address as people reach it (https://push.example.com): the web app's notifications open its pages there; unset, they open none",
  },
  metrics: {
    flag: 'metrics',
    variable: 'FOXBELL_METRICS',
    argument: 'HOST:PORT',
    type: 'text',
    check: (value) => {
      const address = listenAddressOf(value);
      return typeof address === 'string' ? address : undefined;
    },
    help: 'serve Prometheus metrics at http://HOST:PORT/metrics, apart from the API (off when unset)',
  },
} as const satisfies Record<string, Setting>;

/** The settings table of a server with these providers: its own settings, then each provider's group. */
function serverSettings(registry: ProviderRegistry): Record<string, Setting> {
  return { ...OWN_SETTINGS, ...providerSettings(registry) };
}

/** Every setting of `foxbell-server`, once: its flag, variable, default, check and help. */
export const SERVER_SETTINGS = serverSettings(PROVIDERS) as typeof OWN_SETTINGS &
  ProviderSettings<typeof PROVIDERS>;

/** `foxbell-server --help` of a server with these providers. */
export function usageFor(registry: ProviderRegistry): string {
  return usageOf(
    `Usage: foxbell-server [worker] [options]

  worker                deliver only (no API), sharing the database with a server; any number may run
  admin …               manage accounts, tokens, devices and the pause of a running server: admin --help
  backup, restore …     copy the SQLite database of a running server, and bring a copy back: backup --help
  --version             print the version and exit`,
    serverSettings(registry),
  );
}

export const USAGE = usageFor(PROVIDERS);

export type ConfigResult<Registry extends ProviderRegistry = typeof PROVIDERS> =
  | { ok: true; config: ServerConfig<Registry>; warnings: string[] }
  | { ok: false; problems: string[] }
  | { ok: 'help' };

/**
 * Reads the settings once, at start: each flag, else its FOXBELL_* variable, else the default.
 * Every bad setting is listed, not only the first, so one restart fixes them all. Each provider
 * of `registry` reads its own group and makes its config.
 */
export function readConfig<Registry extends ProviderRegistry = typeof PROVIDERS>(
  argv: string[],
  env: NodeJS.ProcessEnv,
  registry: Registry = PROVIDERS as ProviderRegistry as Registry,
): ConfigResult<Registry> {
  const read = readSettings(serverSettings(registry), argv, env, { positionals: true });
  if (read.ok !== true) return read;
  const { problems } = read;
  const values = read.values as SettingValues<typeof OWN_SETTINGS>;
  const [command = 'serve', ...extra] = read.positionals;
  if (command !== 'serve' && command !== 'worker')
    problems.push(`unknown command "${command}"; the commands are "worker", "admin", "backup" and "restore"`);
  if (extra.length > 0) problems.push(`unexpected arguments: ${extra.join(' ')}`);
  if (values.database === undefined && values.databaseSchema !== undefined) {
    problems.push(`${settingName(OWN_SETTINGS.databaseSchema)} needs --database`);
  }
  const workers = values.noWorkers ? 0 : values.workers;
  if (command === 'worker' && workers === 0) problems.push('a worker needs --workers of at least 1');
  const providers = providerConfigs(registry, read.values, problems, { dev: values.dev });
  if ((values.tlsCert === undefined) !== (values.tlsKey === undefined)) {
    problems.push(`${settingName(OWN_SETTINGS.tlsCert)} and ${settingName(OWN_SETTINGS.tlsKey)} go together`);
  }
  if (problems.length > 0 || providers === undefined) return { ok: false, problems };
  return {
    ok: true,
    warnings: read.warnings,
    config: {
      command: command as OwnConfig['command'],
      port: values.port,
      host: values.host,
      dataDir: values.data,
      database:
        values.database === undefined
          ? { kind: 'sqlite', dataDir: values.data }
          : {
              kind: 'postgres',
              url: values.database,
              schema: values.databaseSchema,
              poolSize: values.databasePool,
            },
      adminKey: values.adminKey,
      dev: values.dev,
      limits: {
        ...DEFAULT_LIMITS,
        perTokenPerMinute: values.ratePerToken,
        perAccountPerMinute: values.ratePerAccount,
        perAccountPerMonth: values.monthlyQuota,
        sendsInFlight: values.sendsInFlight,
        linkCodeMs: values.linkCodeSeconds * 1000,
        deviceStaleMs: values.deviceStaleDays * 86_400_000,
      },
      logLevel: values.logLevel,
      workers,
      leaseMs: values.leaseSeconds * 1000,
      queueWake: values.queueWake,
      drainMs: values.drainSeconds * 1000,
      metrics: values.metrics === undefined ? undefined : (listenAddressOf(values.metrics) as ListenAddress),
      trustProxy:
        values.trustProxy === undefined ? [] : values.trustProxy.split(',').map((part) => part.trim()),
      publicUrl: values.publicUrl === undefined ? undefined : new URL(values.publicUrl).origin,
      tls:
        values.tlsCert === undefined || values.tlsKey === undefined
          ? undefined
          : { certFile: values.tlsCert, keyFile: values.tlsKey },
      ...providers,
    },
  };
}
