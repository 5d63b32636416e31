import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import type { SendFields } from '@foxbell/sdk';
import { LIMITS } from '@foxbell/sdk/contract';
import { openClient } from '../client.js';
import type { Context, Handler } from '../context.js';
import { type ExitCode, usageError } from '../exit-codes.js';
import type { SendArgs } from '../flags.js';
import { OUTCOME_LOOK, type Outcome, withOverrides } from '../outcome.js';
import { reportError } from '../report-error.js';
import { fieldsFromFlags } from '../send-fields.js';
import { deliver } from '../sending.js';
import { cutToBytes, plainText } from '../text.js';

/** How much of the command's output is kept for the message's last lines (the rest only streams through). */
const TAIL_CHARS = 64 * 1024;
/** How much of the command line a title shows. */
const SHOWN_COMMAND_BYTES = 80;
/** A shell's code for a command that could not be found or started. */
const CANNOT_RUN = 127;

interface Finished {
  /** The exit code `notify run` ends with: the command's own, 128 + n for signal n, 127 when it did not start. */
  exitCode: number;
  signal?: NodeJS.Signals;
  startError?: string;
  output: string;
  durationMs: number;
}

type RunArgs = SendArgs & { '--'?: (string | number)[]; lines: number };

/**
 * Runs the command with its output streamed through unchanged, then sends one notification of
 * its result. Exits with the command's code whatever happens to the notification.
 */
export const run: Handler<RunArgs> = async (args, context) => {
  const command = (args['--'] ?? []).map(String);
  if (command.length === 0) throw usageError('Give the command to run after --', 'notify run -- make test');
  if (!Number.isInteger(args.lines) || args.lines < 0 || args.lines > 1000) {
    throw usageError('--lines takes a whole number from 0 to 1000');
  }
  const failOpen = { failOpen: true };
  // Settings are checked first, so a missing token is told before a long command, not after.
  const opened = await openClient(args, context, { tokenOptional: args['dry-run'] === true }).catch(
    (error: unknown) => {
      reportError(error, context.out, failOpen);
      return undefined;
    },
  );
  const finished = await runCommand(command, context);
  if (finished.startError) context.out.error([`cannot run ${command[0]}: ${finished.startError}`]);
  if (opened) {
    try {
      const built = runNotification(command, finished, args.lines);
      const fields = withOverrides(
        built,
        await fieldsFromFlags(args, opened.client, built, opened.settings.fieldDefaults),
      );
      await deliver(fields, args, opened.client, context);
    } catch (error) {
      reportError(error, context.out, failOpen);
    }
  }
  return finished.exitCode as ExitCode;
};

function runCommand(command: string[], { streams }: Context): Promise<Finished> {
  const started = performance.now();
  let output = '';
  // One decoder per stream: a character split across two chunks is decoded whole.
  const keeper = () => {
    const decoder = new StringDecoder('utf8');
    return (chunk: Buffer) => {
      output = (output + decoder.write(chunk)).slice(-TAIL_CHARS);
    };
  };
  return new Promise((resolve) => {
    const child = spawn(command[0] as string, command.slice(1), { stdio: ['inherit', 'pipe', 'pipe'] });
    child.stdout.on('data', keeper()).pipe(streams.stdout, { end: false });
    child.stderr.on('data', keeper()).pipe(streams.stderr, { end: false });
    // Ctrl-C on a terminal reaches the command too (one process group); any other signal sent
    // to notify is passed on, and notify stays to report how the command ended.
    const forward = (signal: NodeJS.Signals) => {
      if (signal !== 'SIGINT' || !process.stdin.isTTY) child.kill(signal);
    };
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, forward);
    const done = (result: Omit<Finished, 'output' | 'durationMs'>) => {
      for (const signal of signals) process.off(signal, forward);
      resolve({ ...result, output, durationMs: performance.now() - started });
    };
    child.on('error', (error: NodeJS.ErrnoException) =>
      done({
        exitCode: CANNOT_RUN,
        startError: error.code === 'ENOENT' ? 'command not found' : error.message,
      }),
    );
    child.on('close', (code, signal) => {
      if (signal) done({ exitCode: 128 + (constants.signals[signal] ?? 0), signal });
      else done({ exitCode: code ?? 1 });
    });
  });
}

/** The notification of a finished command: what ran, how it ended, how long it took, its last lines. */
export function runNotification(
  command: readonly string[],
  finished: Finished,
  lines: number,
): Partial<SendFields> & { message: string } {
  const outcome: Outcome =
    finished.exitCode === 0
      ? 'success'
      : finished.signal && finished.signal !== 'SIGKILL'
        ? 'cancelled'
        : 'failure';
  const look = OUTCOME_LOOK[outcome];
  // The command on one line, short enough to leave room for how it ended.
  const shown = cutToBytes(
    plainText(command.join(' ')).replace(/\s+/g, ' ').trim(),
    SHOWN_COMMAND_BYTES,
    'start',
  );
  const ending = finished.startError
    ? `could not start (${finished.startError})`
    : finished.signal
      ? `was stopped by ${finished.signal}`
      : finished.exitCode === 0
        ? 'succeeded'
        : `failed (exit ${finished.exitCode})`;
  const head = `Exit ${finished.exitCode} after ${duration(finished.durationMs)}`;
  const tail =
    lines === 0 ? '' : plainText(finished.output).replace(/\n+$/, '').split('\n').slice(-lines).join('\n');
  const room = LIMITS.messageBytes.max - Buffer.byteLength(`${head}\n\n`);
  return {
    ...look.fields,
    title: cutToBytes(`${look.mark} ${shown} ${ending}`, LIMITS.titleBytes, 'start'),
    message: tail.trim() === '' ? head : `${head}\n\n${cutToBytes(tail, room, 'end')}`,
  };
}

/** `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(Math.floor(seconds % 60)).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
