import { appendFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { StatusRecord } from '@foxbell/sdk';
import { willNotArrive } from '@foxbell/sdk/contract';
import { type CliIo, runCli } from '../cli.js';
import { DROP_HINTS, devicesNotReached, devicesReached, reachCount } from '../delivery-view.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { FIELD_FLAGS } from '../flags.js';

/**
 * The GitHub Action (action.yml at the repository root): `notify ci` run in the action's own
 * process with its inputs, its result written to the step's outputs and the job summary. The
 * runner gives each input as `INPUT_<NAME>` (upper case, the hyphen kept) and the files to write
 * as GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
 */

/** A config file no runner has: the Action reads no profile. */
const NO_CONFIG = '/nonexistent/foxbell-action/config.json';

/** Inputs that are flags of `notify ci`, passed on as they are: the send fields', and two more. */
const FLAG_INPUTS = [...FIELD_FLAGS.map(({ flag }) => flag), 'idempotency-key', 'status'];

export interface ActionIo {
  env: NodeJS.ProcessEnv;
  /** The job log. */
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

function input(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[`INPUT_${name.replaceAll(' ', '_').toUpperCase()}`]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The `notify ci` arguments the inputs stand for. */
export function argumentsOf(env: NodeJS.ProcessEnv): string[] {
  const args = ['ci', '--json'];
  for (const flag of FLAG_INPUTS) {
    const value = input(env, flag);
    if (value !== undefined) args.push(`--${flag}`, value);
  }
  for (const line of (input(env, 'params') ?? '').split('\n')) {
    if (line.trim() !== '') args.push('--param', line.trim());
  }
  const wait = input(env, 'wait');
  if (wait !== undefined && wait !== '0') args.push(`--wait=${wait}`);
  if (input(env, 'dry-run') === 'true') args.push('--dry-run');
  if ((input(env, 'fail-open') ?? 'true') === 'true') args.push('--fail-open');
  return args;
}

/** A workflow command's text: `%`, CR and LF escaped as the runner reads them. */
const escaped = (text: string) => text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');

interface Result {
  id?: string | null;
  request_id?: string;
  idempotency_key?: string;
  notification?: { title?: string; message?: string };
  delivery?: StatusRecord;
  dry_run?: boolean;
  request?: unknown;
  error?: { code: string; message: string };
  next?: string;
  warnings?: string[];
}

export async function runAction(io: ActionIo): Promise<ExitCode> {
  const { env } = io;
  const token = input(env, 'token');
  // Before anything else is printed: the runner hides the token from the rest of the log.
  if (token !== undefined) io.stdout.write(`::add-mask::${token}\n`);
  let printed = '';
  const captured = new Writable({
    write(chunk, _encoding, done) {
      printed += chunk;
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  const baseUrl = input(env, 'base-url');
  // The service and token are the inputs alone: an empty one (a fork's pull request gets no
  // secrets) is none, never a profile a self-hosted runner's user saved with `notify login`.
  const empty = [
    token === undefined ? 'token' : undefined,
    baseUrl === undefined ? 'base-url' : undefined,
  ].filter((name) => name !== undefined);
  if (empty.length > 0) {
    const failOpen = (input(env, 'fail-open') ?? 'true') === 'true';
    const what = `the ${empty.map((name) => `\`${name}\``).join(' and ')} ${empty.length === 1 ? 'input is' : 'inputs are'} empty`;
    io.stdout.write(
      `::${failOpen ? 'warning' : 'error'}::${escaped(`Notification not sent: ${what} (a workflow run from a fork's pull request gets no secrets)`)}\n`,
    );
    await summary(env, `Foxbell: the notification was not sent: ${what}`);
    return failOpen ? EXIT.ok : EXIT.usage;
  }
  const cliEnv = {
    ...env,
    NOTIFY_TOKEN: token ?? '',
    NOTIFY_BASE_URL: baseUrl ?? '',
    NOTIFY_PROFILE: '',
    NOTIFY_CONFIG: NO_CONFIG,
  };
  const cli: CliIo = { stdout: captured, stderr: io.stderr, env: cliEnv, stdin: io.stdin };
  const code = await runCli(argumentsOf(env), cli);
  const result = (printed.trim() === '' ? {} : JSON.parse(printed)) as Result;

  for (const warning of result.warnings ?? []) io.stdout.write(`::warning::${escaped(warning)}\n`);
  if (result.error) {
    const line = `${result.error.message} (${result.error.code})${result.next ? `: ${result.next}` : ''}`;
    io.stdout.write(`::${code === 0 ? 'warning' : 'error'}::${escaped(`Notification not sent: ${line}`)}\n`);
    await summary(env, `Foxbell: the notification was not sent: ${result.error.message}`);
    return code;
  }
  if (result.dry_run) {
    io.stdout.write(
      `Dry run, nothing sent. The request would be:\n${JSON.stringify(result.request, null, 2)}\n`,
    );
    return code;
  }
  const title = result.notification?.title ?? result.notification?.message ?? 'the notification';
  const { delivery } = result;
  const outcome =
    delivery === undefined
      ? 'accepted (delivery not followed: set `wait` to follow it)'
      : `${delivery.status}, ${reachCount(delivery)}`;
  io.stdout.write(`Sent "${title}" as ${result.id} (${result.request_id}): ${outcome}\n`);
  const missed = delivery === undefined ? [] : notArriving(delivery);
  // Every device missed, or dropped: an error when the step fails for it (fail-open off), else a warning.
  const level = delivery !== undefined && willNotArrive(delivery) && code !== 0 ? 'error' : 'warning';
  for (const line of missed) io.stdout.write(`::${level}::${escaped(`Foxbell: ${line}`)}\n`);
  await outputs(env, {
    id: result.id ?? undefined,
    'request-id': result.request_id,
    'idempotency-key': result.idempotency_key,
    status: delivery?.status,
    reached: delivery === undefined ? undefined : String(devicesReached(delivery)),
  });
  const said = `Foxbell: sent “${title}” (${result.id}): ${outcome}`;
  await summary(
    env,
    missed.length === 0 ? said : [said, '', ...missed.map((line) => `- ${line}`)].join('\n'),
  );
  return code;
}

/**
 * What will not arrive, a line each: the notification, when it was dropped, or each device that
 * will not get it, with why and what to do.
 */
function notArriving(record: StatusRecord): string[] {
  if (record.status === 'dropped') {
    const hint = record.reason === undefined ? undefined : DROP_HINTS[record.reason];
    return [
      `it will not arrive: it was dropped (${record.reason ?? 'no reason given'})${hint ? `; ${hint}` : ''}`,
    ];
  }
  return devicesNotReached(record).map(({ device, why }) => `${device} will not get it: ${why}`);
}

/** `name=value` lines in the GITHUB_OUTPUT file; values of ours are one line each. */
async function outputs(env: NodeJS.ProcessEnv, values: Record<string, string | undefined>): Promise<void> {
  const file = env.GITHUB_OUTPUT;
  if (!file) return;
  const lines = Object.entries(values)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && !/[\r\n]/.test(entry[1]))
    .map(([name, value]) => `${name}=${value}\n`);
  await appendFile(file, lines.join(''));
}

async function summary(env: NodeJS.ProcessEnv, line: string): Promise<void> {
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${line}\n`);
}
