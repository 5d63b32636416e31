import { parseArgs } from 'node:util';
import { APNS_PRODUCTION_URL, APNS_SANDBOX_URL } from './apns/client.js';
import type { ApnsTopics } from './apns/push-request.js';
import { DEFAULT_LIMITS, type ServiceLimits } from './http/context.js';
import type { DatabaseConfig } from './store/open.js';
import { DEFAULT_POOL_SIZE, SCHEMA_NAME } from './store/postgres.js';

/** Where pushes go: the simulator inside the process, or an APNs endpoint with a `.p8` key. */
export type ApnsConfig =
  | { kind: 'sim'; controlPort: number; topics: ApnsTopics }
  | {
      kind: 'remote';
      url: string;
      /** A PEM file of certificates to trust besides the system's (a standalone simulator's). */
      caFile: string | undefined;
      keyFile: string;
      keyId: string;
      teamId: string;
      topics: ApnsTopics;
    };

export interface ServerConfig {
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
  /** How long a worker holds a destination it is pushing before another worker may take it over. */
  leaseMs: number;
  apns: ApnsConfig;
}

const DEFAULT_TOPIC = 'app.foxbell.Foxbell';

export const USAGE = `Usage: foxbell-server [worker] [options]

  worker                deliver only (no API), sharing the database with a server; any number may run

  --port N              port to listen on; 0 picks a free one        (FOXBELL_PORT, default 8787)
  --host HOST           address to listen on                          (FOXBELL_HOST, default 127.0.0.1)
  --data DIR            directory of the embedded SQLite database     (FOXBELL_DATA, default ./.foxbell)
  --database URL        a postgres:// URL: PostgreSQL instead of SQLite, shared by any number of
                        API and worker processes                      (FOXBELL_DATABASE_URL)
  --database-schema S   the schema for the tables, made when missing  (FOXBELL_DATABASE_SCHEMA, default:
                        the connection's search_path, normally public)
  --database-pool N     connections this process opens at most        (FOXBELL_DATABASE_POOL, default ${DEFAULT_POOL_SIZE})
  --admin-key KEY       the operator's key for admin routes           (FOXBELL_ADMIN_KEY)
  --dev                 seed a dev account, devices and token on first start (FOXBELL_DEV=1)
  --rate-per-token N    sends per token per minute                    (FOXBELL_RATE_PER_TOKEN, default 30)
  --rate-per-account N  sends per account per minute                  (FOXBELL_RATE_PER_ACCOUNT, default 60)
  --monthly-quota N     sends per account per UTC month               (FOXBELL_MONTHLY_QUOTA, default 10000)
  --sends-in-flight N   sends stored at once; past it, 503 at once    (FOXBELL_SENDS_IN_FLIGHT, default 1000)
  --log-level LEVEL     fatal, error, warn, info, debug, trace or silent (FOXBELL_LOG_LEVEL, default info)
  --workers N           pushes in flight at once                      (FOXBELL_WORKERS, default 64)
  --no-workers          serve the API only; run \`foxbell-server worker\` to deliver (FOXBELL_WORKERS=0)
  --lease-seconds N     how long a push may take before another worker takes it over, should this
                        one have died; longer than APNs ever takes to answer (FOXBELL_LEASE_SECONDS, default 60)

  --apns MODE           sim (the built-in simulator), production, sandbox (FOXBELL_APNS, default sim)
  --apns-url URL        an APNs endpoint of your own, e.g. a standalone simulator (FOXBELL_APNS_URL)
  --apns-ca FILE        PEM certificates to trust for --apns-url       (FOXBELL_APNS_CA)
  --apns-key-file F     the .p8 key of token-based authentication      (FOXBELL_APNS_KEY_FILE)
  --apns-key-id ID      its key id                                     (FOXBELL_APNS_KEY_ID)
  --apns-team-id ID     the team id                                    (FOXBELL_APNS_TEAM_ID)
  --apns-topic BUNDLE   the iPhone app's bundle id                     (FOXBELL_APNS_TOPIC, default ${DEFAULT_TOPIC})
  --apns-topic-watch B  the watch app's                 (FOXBELL_APNS_TOPIC_WATCH, default BUNDLE.watchkitapp)
  --apns-topic-vision B the visionOS app's              (FOXBELL_APNS_TOPIC_VISION, default BUNDLE)
  --apns-sim-control-port N  the simulator's control API (FOXBELL_APNS_SIM_CONTROL_PORT, default 0: any free port)
  --help                print this and exit
`;

const APNS_MODES = ['sim', 'production', 'sandbox'];
const DEFAULT_WORKERS = 64;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export type ConfigResult =
  | { ok: true; config: ServerConfig }
  | { ok: false; problems: string[] }
  | { ok: 'help' };

/**
 * Reads the settings once, at start: each flag, else its FOXBELL_* variable, else the default.
 * Every bad setting is listed, not only the first, so one restart fixes them all.
 */
export function readConfig(argv: string[], env: NodeJS.ProcessEnv): ConfigResult {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        database: { type: 'string' },
        'database-schema': { type: 'string' },
        'database-pool': { type: 'string' },
        'admin-key': { type: 'string' },
        dev: { type: 'boolean' },
        'rate-per-token': { type: 'string' },
        'rate-per-account': { type: 'string' },
        'monthly-quota': { type: 'string' },
        'sends-in-flight': { type: 'string' },
        'log-level': { type: 'string' },
        workers: { type: 'string' },
        'no-workers': { type: 'boolean' },
        'lease-seconds': { type: 'string' },
        apns: { type: 'string' },
        'apns-url': { type: 'string' },
        'apns-ca': { type: 'string' },
        'apns-key-file': { type: 'string' },
        'apns-key-id': { type: 'string' },
        'apns-team-id': { type: 'string' },
        'apns-topic': { type: 'string' },
        'apns-topic-watch': { type: 'string' },
        'apns-topic-vision': { type: 'string' },
        'apns-sim-control-port': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return { ok: false, problems: [(error as Error).message] };
  }
  if (values.help) return { ok: 'help' };

  const problems: string[] = [];
  const [command = 'serve', ...extra] = positionals;
  if (command !== 'serve' && command !== 'worker')
    problems.push(`unknown command "${command}"; the only one is "worker"`);
  if (extra.length > 0) problems.push(`unexpected arguments: ${extra.join(' ')}`);
  const setting = (flag: string, variable: string): string | undefined =>
    (values[flag] as string | undefined) ?? (env[variable] === '' ? undefined : env[variable]);
  const integer = (flag: string, variable: string, fallback: number, min: number, max: number): number => {
    const text = setting(flag, variable);
    if (text === undefined) return fallback;
    const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= max)) {
      problems.push(`--${flag} (${variable}) must be an integer from ${min} to ${max}, not "${text}"`);
    }
    return value;
  };

  const port = integer('port', 'FOXBELL_PORT', 8787, 0, 65_535);
  const host = setting('host', 'FOXBELL_HOST') ?? '127.0.0.1';
  const dataDir = setting('data', 'FOXBELL_DATA') ?? './.foxbell';
  const database = readDatabaseConfig(dataDir, setting, integer, problems);
  const adminKey = setting('admin-key', 'FOXBELL_ADMIN_KEY');
  if (adminKey !== undefined && adminKey.length < 16) {
    problems.push('--admin-key (FOXBELL_ADMIN_KEY) must be at least 16 characters');
  }
  const devText = env.FOXBELL_DEV;
  const dev = values.dev === true || devText === '1' || devText === 'true';
  const limits: ServiceLimits = {
    ...DEFAULT_LIMITS,
    perTokenPerMinute: integer(
      'rate-per-token',
      'FOXBELL_RATE_PER_TOKEN',
      DEFAULT_LIMITS.perTokenPerMinute,
      1,
      1e9,
    ),
    perAccountPerMinute: integer(
      'rate-per-account',
      'FOXBELL_RATE_PER_ACCOUNT',
      DEFAULT_LIMITS.perAccountPerMinute,
      1,
      1e9,
    ),
    perAccountPerMonth: integer(
      'monthly-quota',
      'FOXBELL_MONTHLY_QUOTA',
      DEFAULT_LIMITS.perAccountPerMonth,
      1,
      1e12,
    ),
    sendsInFlight: integer(
      'sends-in-flight',
      'FOXBELL_SENDS_IN_FLIGHT',
      DEFAULT_LIMITS.sendsInFlight,
      1,
      1e6,
    ),
  };
  const logLevel = setting('log-level', 'FOXBELL_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(
      `--log-level (FOXBELL_LOG_LEVEL) must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`,
    );
  }
  const workers =
    values['no-workers'] === true ? 0 : integer('workers', 'FOXBELL_WORKERS', DEFAULT_WORKERS, 0, 10_000);
  if (command === 'worker' && workers === 0) problems.push('a worker needs --workers of at least 1');
  const leaseMs = integer('lease-seconds', 'FOXBELL_LEASE_SECONDS', 60, 1, 3600) * 1000;
  const apns = readApnsConfig(setting, integer, problems);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    config: {
      command: command as ServerConfig['command'],
      port,
      host,
      dataDir,
      database,
      adminKey,
      dev,
      limits,
      logLevel,
      workers,
      leaseMs,
      apns,
    },
  };
}

function readDatabaseConfig(
  dataDir: string,
  setting: (flag: string, variable: string) => string | undefined,
  integer: (flag: string, variable: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): DatabaseConfig {
  const url = setting('database', 'FOXBELL_DATABASE_URL');
  const schema = setting('database-schema', 'FOXBELL_DATABASE_SCHEMA');
  const poolSize = integer('database-pool', 'FOXBELL_DATABASE_POOL', DEFAULT_POOL_SIZE, 1, 1000);
  if (url === undefined) {
    if (schema !== undefined) problems.push('--database-schema (FOXBELL_DATABASE_SCHEMA) needs --database');
    return { kind: 'sqlite', dataDir };
  }
  // Not echoed back: the URL may hold a password.
  if (!/^postgres(ql)?:\/\//.test(url)) {
    problems.push('--database (FOXBELL_DATABASE_URL) must be a postgres:// or postgresql:// URL');
  }
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    problems.push(
      `--database-schema (FOXBELL_DATABASE_SCHEMA) must be lowercase letters, digits and _, not "${schema}"`,
    );
  }
  return { kind: 'postgres', url, schema, poolSize };
}

function readApnsConfig(
  setting: (flag: string, variable: string) => string | undefined,
  integer: (flag: string, variable: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): ApnsConfig {
  const topic = setting('apns-topic', 'FOXBELL_APNS_TOPIC') ?? DEFAULT_TOPIC;
  const topics: ApnsTopics = {
    ios: topic,
    watchos: setting('apns-topic-watch', 'FOXBELL_APNS_TOPIC_WATCH') ?? `${topic}.watchkitapp`,
    visionos: setting('apns-topic-vision', 'FOXBELL_APNS_TOPIC_VISION') ?? topic,
  };
  const url = setting('apns-url', 'FOXBELL_APNS_URL');
  const mode = setting('apns', 'FOXBELL_APNS') ?? (url === undefined ? 'sim' : undefined);
  if (mode !== undefined && !APNS_MODES.includes(mode)) {
    problems.push(`--apns (FOXBELL_APNS) must be one of ${APNS_MODES.join(', ')}, not "${mode}"`);
  }
  if (mode !== undefined && url !== undefined) problems.push('give --apns or --apns-url, not both');
  if (mode === 'sim' || (mode === undefined && url === undefined)) {
    const controlPort = integer('apns-sim-control-port', 'FOXBELL_APNS_SIM_CONTROL_PORT', 0, 0, 65_535);
    return { kind: 'sim', controlPort, topics };
  }
  if (url !== undefined && !/^https?:\/\/[^/]+\/?$/.test(url)) {
    problems.push(`--apns-url (FOXBELL_APNS_URL) must be an http:// or https:// origin, not "${url}"`);
  }
  const required = (flag: string, variable: string): string => {
    const value = setting(flag, variable);
    if (value === undefined) problems.push(`--${flag} (${variable}) is required to push to APNs`);
    return value ?? '';
  };
  return {
    kind: 'remote',
    url: url ?? (mode === 'sandbox' ? APNS_SANDBOX_URL : APNS_PRODUCTION_URL),
    caFile: setting('apns-ca', 'FOXBELL_APNS_CA'),
    keyFile: required('apns-key-file', 'FOXBELL_APNS_KEY_FILE'),
    keyId: required('apns-key-id', 'FOXBELL_APNS_KEY_ID'),
    teamId: required('apns-team-id', 'FOXBELL_APNS_TEAM_ID'),
    topics,
  };
}
