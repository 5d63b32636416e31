import { isErrorCode } from '@foxbell/sdk/contract';
import { ERROR_ADVICE } from './error-advice.js';
import { CliError, EXIT, type ExitCode, exitCodeOf } from './exit-codes.js';
import type { Output } from './output.js';

/** What to do next for failures that have no HTTP status, and so no line in the spec's table. */
const LOCAL_HINTS: Readonly<Record<string, string>> = {
  timeout: 'The service did not answer in time; try again later',
  aborted: 'The request was cancelled',
  invalid_response: 'The address answered, but not as a Foxbell service: check the base URL',
};

/** The fields an error may carry, read by shape: the SDK's classes stay out of this module. */
interface ErrorShape {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  field?: unknown;
  details?: unknown;
  requestId?: unknown;
  retryAfter?: unknown;
  resetAt?: unknown;
}

/**
 * Reports a failure on stderr (the spec's code, the field, the request id and what to do next)
 * and, with --json, as a JSON error document on stdout; returns the exit code it stands for.
 * With `failOpen` (--fail-open) the failure is a warning and the exit code 0.
 */
export function reportError(error: unknown, out: Output, options: { failOpen?: boolean } = {}): ExitCode {
  const exitCode = options.failOpen ? EXIT.ok : exitCodeOf(error);
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ErrorShape;
  const code = typeof shape.code === 'string' ? shape.code : 'internal';
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const field = typeof shape.field === 'string' ? shape.field : undefined;
  const requestId = typeof shape.requestId === 'string' ? shape.requestId : undefined;
  const lines = [
    message,
    ...(error instanceof CliError ? error.lines : []),
    `code: ${code}${typeof shape.status === 'number' ? ` (HTTP ${shape.status})` : ''}`,
  ];
  if (field) lines.push(`field: ${field}`);
  if (requestId) lines.push(`request id: ${requestId}`);
  if (shape.resetAt instanceof Date) lines.push(`quota resets: ${shape.resetAt.toISOString()}`);
  const next = hintFor(error, code)?.replace('scene_params.<name>', field ?? 'scene_params.<name>');
  if (next) lines.push(`next: ${next}`);
  // A result already shown (a notification sent that will not arrive) was sent: its message says
  // what happened, and the JSON document is that result.
  const sent = error instanceof CliError && error.resultShown;
  if (options.failOpen)
    out.warn([sent ? message : `notification not sent: ${message}`, ...lines.slice(1)].join('\n  '), {
      always: true,
    });
  else out.error(lines);
  if (out.json && !sent) {
    out.result(
      {
        error: {
          code,
          message,
          ...(field ? { field } : {}),
          ...(shape.details && typeof shape.details === 'object' ? { details: shape.details } : {}),
        },
        ...(requestId ? { request_id: requestId } : {}),
        ...(next ? { next } : {}),
        exit_code: exitCode,
      },
      () => '',
    );
  }
  return exitCode;
}

/** The service this machine runs with `pnpm start`: when nothing responds there, that is what to do. */
const LOCAL_DEFAULT = /^http:\/\/(127\.0\.0\.1|localhost):8787$/;

/** What to do when a connection failed, by why it did (the SDK's `reason`) and where it went. */
function connectionHint(error: unknown): string {
  const { reason, baseUrl, attempts } = error as { reason?: unknown; baseUrl?: unknown; attempts?: unknown };
  const tries = Array.isArray(attempts) && attempts.length > 1 ? ` (tried ${attempts.length} times)` : '';
  if (reason === 'refused' && typeof baseUrl === 'string' && LOCAL_DEFAULT.test(baseUrl)) {
    return `Is the local service running? Start it with \`pnpm start\` in the Foxbell repository${tries}`;
  }
  if (reason === 'tls') {
    return `Its certificate is not signed by a CA this machine trusts: point NODE_EXTRA_CA_CERTS at the CA's PEM file${tries}`;
  }
  if (reason === 'dns') return `Check the host name of the base URL, and your DNS${tries}`;
  return `Check the base URL and your network, or a proxy (HTTPS_PROXY)${tries}`;
}

function hintFor(error: unknown, code: string): string | undefined {
  if (error instanceof CliError) return error.hint;
  // Set where the CLI knows more than the code tells (the scenes to choose from, say).
  const own = (error as { hint?: unknown }).hint;
  if (typeof own === 'string') return own;
  if (code === 'connection_error') return connectionHint(error);
  if (code === 'not_found')
    return 'Check the id; without the own_status read scope every status is not found';
  if (code === 'forbidden') {
    return 'Use a send token; `notify devices` also needs its device_names read scope';
  }
  if (isErrorCode(code)) return ERROR_ADVICE[code].replaceAll('`', '');
  return LOCAL_HINTS[code];
}
