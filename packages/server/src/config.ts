import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS, type ServiceLimits } from './http/context.js';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  adminKey: string | undefined;
  dev: boolean;
  limits: ServiceLimits;
  logLevel: string;
}

export const USAGE = `Usage: foxbell-server [options]

  --port N              port to listen on; 0 picks a free one        (FOXBELL_PORT, default 8787)
  --host HOST           address to listen on                          (FOXBELL_HOST, default 127.0.0.1)
  --data DIR            directory of the embedded SQLite database     (FOXBELL_DATA, default ./.foxbell)
  --admin-key KEY       the operator's key for admin routes           (FOXBELL_ADMIN_KEY)
  --dev                 seed a dev account, devices and token on first start (FOXBELL_DEV=1)
  --rate-per-token N    sends per token per minute                    (FOXBELL_RATE_PER_TOKEN, default 30)
  --rate-per-account N  sends per account per minute                  (FOXBELL_RATE_PER_ACCOUNT, default 60)
  --monthly-quota N     sends per account per UTC month               (FOXBELL_MONTHLY_QUOTA, default 10000)
  --log-level LEVEL     fatal, error, warn, info, debug, trace or silent (FOXBELL_LOG_LEVEL, default info)
  --help                print this and exit
`;

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
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        'admin-key': { type: 'string' },
        dev: { type: 'boolean' },
        'rate-per-token': { type: 'string' },
        'rate-per-account': { type: 'string' },
        'monthly-quota': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return { ok: false, problems: [(error as Error).message] };
  }
  if (values.help) return { ok: 'help' };

  const problems: string[] = [];
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
  };
  const logLevel = setting('log-level', 'FOXBELL_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(
      `--log-level (FOXBELL_LOG_LEVEL) must be one of ${LOG_LEVELS.join(', ')}, not "${logLevel}"`,
    );
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, config: { port, host, dataDir, adminKey, dev, limits, logLevel } };
}
