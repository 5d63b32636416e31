import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Foxbell,
  type PreparedSend,
  type SendFields,
  type SendResult,
  type StatusRecord,
  TimeoutError,
  UndeliverableError,
} from '@foxbell/sdk';
import { devicesForTarget, type Routable, TARGET_KEYWORDS, willNotArrive } from '@foxbell/sdk/contract';
import type { Context } from './context.js';
import { DROP_HINTS, deliveryLine, devicesNotReached, devicesPending, reachCount } from './delivery-view.js';
import { CliError, EXIT, type ExitCode, usageError } from './exit-codes.js';
import type { SendArgs } from './flags.js';
import { withSceneChoices } from './scene-hints.js';

/** `--wait` without a number. */
const DEFAULT_WAIT_SECONDS = 60;
const MAX_WAIT_SECONDS = 3600;
/** How often the devices still pending are looked at once one device has it: growing to 2 s. */
const FIRST_FOLLOW_POLL_MS = 200;
const MAX_FOLLOW_POLL_MS = 2000;

/**
 * Sends one notification the way every sending command does (`send`, `ci`, `run`): a dry run
 * shows the request, a send prints what was accepted, `--wait` follows it to the devices.
 */
export async function deliver(
  fields: Partial<SendFields>,
  args: SendArgs,
  client: Foxbell,
  { out }: Context,
): Promise<ExitCode> {
  const wait = waitSeconds(args.wait);
  const idempotencyKey = args['idempotency-key'];
  const keyOption = idempotencyKey === undefined ? {} : { idempotencyKey };
  try {
    return await sendAndFollow(fields, args, client, { out }, wait, keyOption);
  } catch (error) {
    throw await withSceneChoices(error, fields, client);
  }
}

async function sendAndFollow(
  fields: Partial<SendFields>,
  args: SendArgs,
  client: Foxbell,
  { out }: Pick<Context, 'out'>,
  wait: number | undefined,
  keyOption: { idempotencyKey?: string },
): Promise<ExitCode> {
  if (args['dry-run']) {
    const request = client.prepareSend(fields as SendFields, keyOption);
    out.note('Dry run: checked, nothing sent. The request would be:');
    out.result({ dry_run: true, request: { ...request, body: JSON.parse(request.body) } }, () =>
      formatRequest(request),
    );
    return EXIT.ok;
  }
  await warnIfTargetReachesNone(fields.target, client, out);
  const sending = await out.progress('Sending');
  let result: SendResult;
  try {
    result = await client.send(fields as SendFields, keyOption);
  } finally {
    sending.stop();
  }
  const id = result.id;
  if (wait === undefined || id === null) {
    out.result(
      { ...result, notification: fields },
      () =>
        `${out.paint('stdout', 'green', '✓')} Accepted ${shownAs(fields)} as ${id ?? `(${result.request_id})`}`,
      id ?? '',
    );
    return EXIT.ok;
  }
  const record = await follow(client, id, wait, { out });
  out.result({ ...result, notification: fields, delivery: record }, () => summary(record, out), id);
  return endOfWait(record, out);
}

/**
 * A `--target` that names none of the devices this token can list would be dropped: said before
 * sending (the send goes ahead: the device may be added meanwhile). Keywords and device ids are
 * left to the service; a token without the device_names scope lists nothing, and is not warned.
 */
async function warnIfTargetReachesNone(
  target: unknown,
  client: Foxbell,
  out: Pick<Context['out'], 'warn'>,
): Promise<void> {
  if (typeof target !== 'string' || TARGET_KEYWORDS.includes(target as never) || target.startsWith('dev_'))
    return;
  const devices = await client.devices({ maxRetries: 0 }).catch(() => undefined);
  if (devices === undefined || devicesForTarget(target, devices as Routable[]).length > 0) return;
  const names = devices.map((device) => device.name);
  const named = names.filter((name) => name === target).length;
  out.warn(
    named > 1
      ? `--target "${target}" is the name of ${named} devices, so it reaches none: the notification will be dropped; give a device's id`
      : `--target "${target}" names none of this account's devices (${names.join(', ') || 'none'}): the notification will be dropped`,
  );
}

/** What a send says it sent: its title, else its message's first line, quoted and kept short. */
function shownAs(fields: Partial<SendFields>): string {
  const text =
    (fields.title ?? String(fields.message ?? fields.body ?? fields.text ?? '')).split('\n', 1)[0] ?? '';
  const chars = [...text];
  return `“${chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : text}”`;
}

/**
 * How a `--wait` ends once its result is shown. When the notification will not arrive (it was
 * dropped, or every device's push ended unreached) exit 7, each device named with why and what to
 * do. Otherwise 0, the wait's target reached: a device that will not get it is a warning.
 */
export function endOfWait(record: StatusRecord, out: Pick<Context['out'], 'warn'>): ExitCode {
  if (record.status === 'dropped') {
    throw new CliError(
      'dropped',
      `${record.id} will not arrive: it was dropped (${record.reason ?? 'no reason given'})`,
      {
        exitCode: EXIT.willNotArrive,
        ...(record.reason && DROP_HINTS[record.reason] ? { hint: DROP_HINTS[record.reason] } : {}),
        resultShown: true,
      },
    );
  }
  const unreached = devicesNotReached(record);
  if (willNotArrive(record)) {
    throw new CliError('undeliverable', `${record.id} will not arrive: no device can get it`, {
      exitCode: EXIT.willNotArrive,
      lines: unreached.map(({ device, why }) => `${device}: ${why}`),
      resultShown: true,
    });
  }
  for (const { device, why } of unreached) out.warn(`${device} will not get it: ${why}`);
  return EXIT.ok;
}

/**
 * Polls until every device's push has ended (reached, failed, expired) or the notification was
 * dropped, showing each device's state as it changes. Time out with at least one device reached
 * and the rest still pending is a result (`reached 1 of 3; 2 pending`); with none reached and one
 * still pending, an error (exit 6).
 */
export async function follow(
  client: Foxbell,
  id: string,
  seconds: number,
  { out }: Pick<Context, 'out'>,
): Promise<StatusRecord> {
  const progress = await out.progress(`${id}: waiting`);
  const deadline = Date.now() + seconds * 1000;
  let shown = '';
  const onUpdate = (record: StatusRecord) => {
    const line = `${reachCount(record)}: ${deliveryLine(record)}`;
    if (line === shown) return;
    shown = line;
    if (out.interactive) progress.update(`${id}: ${line}`);
    else out.note(`${id}: ${line}`);
  };
  try {
    // Ends at the first device reached, or as soon as none can be (its record is the result then).
    let record = await client.waitFor(id, { timeoutMs: seconds * 1000, onUpdate }).catch((error: unknown) => {
      if (error instanceof UndeliverableError) return error.record;
      throw error;
    });
    // `sent_to_push` comes with the first device's response. The others may be in flight, or
    // waiting for a retry (up to 16 s apart): followed until each has ended, within --wait.
    let interval = FIRST_FOLLOW_POLL_MS;
    while (record.status !== 'dropped' && devicesPending(record) > 0 && Date.now() + interval < deadline) {
      await sleep(interval);
      interval = Math.min(interval * 2, MAX_FOLLOW_POLL_MS);
      record = await client.status(id);
      onUpdate(record);
    }
    return record;
  } catch (error) {
    if (!(error instanceof TimeoutError) || !error.record) throw error;
    // waitFor ends at the first device reached: timing out there means none was.
    const { record } = error;
    const far = record.destinations.length === 0 ? `Still ${record.status}` : reachCount(record);
    throw new CliError('wait_timeout', `${far} after waiting ${seconds} s`, {
      exitCode: EXIT.timedOut,
      hint: `Wait longer (--wait N) or check later: notify status ${id}`,
      details: { record },
    });
  } finally {
    progress.stop();
  }
}

export function waitSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === '') return DEFAULT_WAIT_SECONDS;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_WAIT_SECONDS) {
    throw usageError(`--wait takes seconds, from 1 to ${MAX_WAIT_SECONDS}`);
  }
  return seconds;
}

function summary(record: StatusRecord, out: Context['out']): string {
  if (record.status === 'dropped')
    return `${out.paint('stdout', 'red', '✗')} ${record.id} ${deliveryLine(record)}`;
  if (willNotArrive(record))
    return `${out.paint('stdout', 'red', '✗')} ${record.id} ${reachCount(record)}; ${deliveryLine(record)}`;
  // Some devices still pending when --wait ran out: reached, but not everywhere yet.
  const mark =
    devicesPending(record) > 0 ? out.paint('stdout', 'yellow', '…') : out.paint('stdout', 'green', '✓');
  return `${mark} ${record.id} ${reachCount(record)}; ${deliveryLine(record)}`;
}

function formatRequest(request: PreparedSend): string {
  const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`);
  return [`${request.method} ${request.url}`, ...headers, '', request.body].join('\n');
}
