/**
 * The exit codes of `notify`, documented in docs/cli.md and stable across releases: a CI step
 * may branch on them. One table; `exitCodeOf` is the only place an error becomes a number.
 */
export const EXIT = {
  /** Sent (or, for other commands, done). */
  ok: 0,
  /** Any other failure. */
  failure: 1,
  /** Usage or validation: nothing was sent. */
  usage: 2,
  /** Authentication or permission. */
  auth: 3,
  /** Rate limit or monthly quota. */
  limited: 4,
  /** The service or the network failed, after the retries. */
  unavailable: 5,
  /** `--wait` ended with the notification dropped, or ran out of time. */
  notDelivered: 6,
} as const;

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

  constructor(
    code: string,
    message: string,
    options: {
      exitCode: ExitCode;
      hint?: string;
      details?: Record<string, unknown>;
      resultShown?: boolean;
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
};

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  // The SDK refuses a malformed base URL or token before sending anything.
  if (code === 'invalid_config') return EXIT.usage;
  if (code === 'invalid_response') return EXIT.unavailable;
  return (typeof name === 'string' ? EXIT_BY_KIND[name] : undefined) ?? EXIT.failure;
}
