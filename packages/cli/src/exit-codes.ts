/**
 * The exit codes of `notify`, stable across releases: a CI step may branch on them. One table:
 * the numbers, the help text's line and docs/cli.md's table (a test compares them) come from it,
 * and `exitCodeOf` is the only place an error becomes a number.
 */
export const EXIT_CODES = {
  ok: { code: 0, means: 'sent' },
  failure: { code: 1, means: 'failure' },
  usage: { code: 2, means: 'usage or validation (nothing sent)' },
  auth: { code: 3, means: 'authentication or permission' },
  limited: { code: 4, means: 'rate limit or quota' },
  unavailable: { code: 5, means: 'service or network, after retries' },
  timedOut: { code: 6, means: '--wait ran out of time' },
  willNotArrive: { code: 7, means: 'it will not arrive (every device failed, or it was dropped)' },
} as const;

type ExitName = keyof typeof EXIT_CODES;

/** Each exit code by name: `EXIT.usage` is 2. */
export const EXIT = Object.fromEntries(
  Object.entries(EXIT_CODES).map(([name, { code }]) => [name, code]),
) as { readonly [Name in ExitName]: (typeof EXIT_CODES)[Name]['code'] };

/** The help text's line: `Exit codes: 0 sent · 1 failure · …`. */
export const EXIT_CODES_HELP = `Exit codes: ${Object.values(EXIT_CODES)
  .map(({ code, means }) => `${code} ${means}`)
  .join(' · ')}`;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure of the CLI itself (usage, configuration, delivery), carrying its exit code. */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  /** What to do next. */
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** The command already printed its result (a dropped notification): report on stderr only. */
  readonly resultShown: boolean;
  /** Lines that explain the message, shown under it: each device that will not get it, and why. */
  readonly lines: readonly string[];

  constructor(
    code: string,
    message: string,
    options: {
      exitCode: ExitCode;
      hint?: string;
      details?: Record<string, unknown>;
      resultShown?: boolean;
      lines?: readonly string[];
      cause?: unknown;
    },
  ) {
    super(message, { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
    this.exitCode = options.exitCode;
    this.hint = options.hint;
    this.details = options.details;
    this.resultShown = options.resultShown ?? false;
    this.lines = options.lines ?? [];
  }
}

export function usageError(message: string, hint?: string): CliError {
  return new CliError('usage', message, { exitCode: EXIT.usage, ...(hint ? { hint } : {}) });
}

/** SDK error kinds by name: matching on `name` keeps the SDK out of the start-up path. */
const EXIT_BY_KIND: Readonly<Record<string, ExitCode>> = {
  ValidationError: EXIT.usage,
  InvalidRequestError: EXIT.usage,
  AuthenticationError: EXIT.auth,
  PermissionError: EXIT.auth,
  RateLimitError: EXIT.limited,
  QuotaExceededError: EXIT.limited,
  ServerError: EXIT.unavailable,
  ConnectionError: EXIT.unavailable,
  TimeoutError: EXIT.unavailable,
  UndeliverableError: EXIT.willNotArrive,
};

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  // The SDK rejects a malformed base URL or token before sending anything.
  if (code === 'invalid_config') return EXIT.usage;
  if (code === 'invalid_response') return EXIT.unavailable;
  return (typeof name === 'string' ? EXIT_BY_KIND[name] : undefined) ?? EXIT.failure;
}
