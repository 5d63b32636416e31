import { Foxbell, type Logger, type RetryInfo } from '@foxbell/sdk';
import { resolveSettings, type Settings } from './config.js';
import type { Context } from './context.js';
import { CliError, EXIT, usageError } from './exit-codes.js';
import type { GlobalArgs } from './flags.js';

/** Stands in for a missing token in a dry run: it is never sent, and shown only as `[redacted]`. */
const DRY_RUN_TOKEN = `fox_send_${'0'.repeat(32)}`;

/**
 * The SDK client for this run, from flags > env > config file. Every request of the CLI goes
 * through it: the CLI has no HTTP code of its own.
 */
export async function openClient(
  args: GlobalArgs,
  { out, env, streams }: Context,
  options: {
    tokenOptional?: boolean;
    /** A token typed at a prompt or piped in (`notify login`): it takes the place of --token. */
    token?: string;
  } = {},
): Promise<{ client: Foxbell; settings: Settings }> {
  const settings = await resolveSettings(
    { profile: args.profile, token: options.token ?? args.token, baseUrl: args['base-url'] },
    env,
  );
  if (args.token !== undefined) {
    out.warn(
      'a token given as --token may be saved in your shell history; prefer NOTIFY_TOKEN or `notify login`',
    );
  }
  if (settings.baseUrl === undefined) {
    throw usageError(
      'No service address',
      'Pass --base-url, set NOTIFY_BASE_URL, or save one with `notify login`',
    );
  }
  if (settings.token === undefined && !options.tokenOptional) {
    throw new CliError('no_token', 'No send token', {
      exitCode: EXIT.auth,
      hint: 'Set NOTIFY_TOKEN, or save one with `notify login`',
    });
  }
  const retries = args.retries;
  if (retries !== undefined && (!Number.isInteger(retries) || retries < 0 || retries > 3)) {
    throw usageError('--retries must be a whole number from 0 to 3');
  }
  const client = new Foxbell({
    token: settings.token ?? DRY_RUN_TOKEN,
    baseUrl: settings.baseUrl,
    // For `notify devices` alone: the account's key shows each device's freshness.
    ...(env.NOTIFY_ACCOUNT_KEY ? { accountKey: env.NOTIFY_ACCOUNT_KEY } : {}),
    ...(await proxiedFetch(env)),
    ...(retries === undefined ? {} : { maxRetries: retries }),
    onRetry: (info) => out.retrying(describeRetry(info, retries ?? 3)),
    // notify says each retry itself (onRetry): the SDK's own word for a long wait would repeat it.
    ...(tracing(args, env)
      ? { logLevel: 'debug' as const, logger: traceLogger(streams.stderr) }
      : { logLevel: 'off' as const }),
  });
  return { client, settings };
}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

/**
 * Node's fetch ignores HTTPS_PROXY and HTTP_PROXY (unless NODE_USE_ENV_PROXY is set, which not
 * every supported Node has): when one is set, requests go through undici's EnvHttpProxyAgent,
 * which reads them with NO_PROXY, in either case. undici is loaded only then.
 */
async function proxiedFetch(env: NodeJS.ProcessEnv): Promise<{ fetch?: typeof fetch }> {
  if (!PROXY_VARIABLES.some((name) => env[name])) return {};
  const { EnvHttpProxyAgent, fetch: undiciFetch } = await import('undici');
  // From this run's environment (a test runs notify in-process with one of its own).
  const options: Record<string, string> = {};
  for (const [option, name] of [
    ['httpProxy', 'http_proxy'],
    ['httpsProxy', 'https_proxy'],
    ['noProxy', 'no_proxy'],
  ] as const) {
    const value = env[name] || env[name.toUpperCase()];
    if (value) options[option] = value;
  }
  const dispatcher = new EnvHttpProxyAgent(options);
  return {
    fetch: ((input, init) => undiciFetch(input as string, { ...init, dispatcher } as never)) as typeof fetch,
  };
}

/** --verbose, or NOTIFY_DEBUG set to anything but empty, 0 or false. */
function tracing(args: GlobalArgs, env: NodeJS.ProcessEnv): boolean {
  const debug = env.NOTIFY_DEBUG;
  return args.verbose === true || (debug !== undefined && !['', '0', 'false'].includes(debug));
}

/**
 * The SDK's log as trace lines on stderr: each attempt, response and retry. The SDK's lines carry
 * no token, header or body; the request id is added from its fields.
 */
function traceLogger(stderr: NodeJS.WriteStream): Logger {
  const line = (message: string, fields?: Record<string, unknown>) => {
    const id = typeof fields?.requestId === 'string' ? ` (${fields.requestId})` : '';
    stderr.write(`trace: ${message.replace(/^foxbell: /, '')}${id}\n`);
  };
  return { debug: line, info: line, warn: line, error: line };
}

function describeRetry(info: RetryInfo, maxRetries: number): string {
  const cause =
    info.status === undefined
      ? { network: 'no connection', timeout: 'no response in time' }[info.reason as 'network' | 'timeout']
      : `${info.status} ${info.code ?? ''}`.trim();
  const request = info.requestId ? `, ${info.requestId}` : '';
  return `attempt ${info.attempt} failed (${cause}${request}); retry ${info.attempt} of ${maxRetries} in ${(info.waitMs / 1000).toFixed(1)} s`;
}
