import { FoxbellError } from '../errors.js';
import { LOG_LEVELS, type Logger, type LogLevel } from '../logging.js';

/** Writes one line at a level, or nothing below the chosen one. Never given a token or message text. */
export type Log = (level: Exclude<LogLevel, 'off'>, message: string, fields: Record<string, unknown>) => void;

/**
 * The log of a client: its `logLevel`, else `FOXBELL_LOG`, else `info` when a `logger` is given
 * and `off` when none is (a library prints nothing unasked).
 */
export function logOf(level: string | undefined, logger: Logger | undefined, from: string): Log | undefined {
  const chosen = level ?? (logger ? 'info' : 'off');
  if (!(LOG_LEVELS as readonly string[]).includes(chosen)) {
    throw new FoxbellError('invalid_config', `${from} must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const floor = LOG_LEVELS.indexOf(chosen as LogLevel);
  if (chosen === 'off') return undefined;
  const sink = logger ?? console;
  return (at, message, fields) => {
    if (LOG_LEVELS.indexOf(at) >= floor) sink[at](`foxbell: ${message}`, fields);
  };
}
