// Destinations pushed per second by Foxbell's delivery (worker: route, lease, HTTP/2 push, record
// on SQLite), against a bare script pushing the same payloads with @parse/node-apn, both to the
// same APNs simulator (its own process, TLS, token auth) in the same run.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The built package, as users run it (tsx's transform of the sources is not what ships).
import {
  ApnsClient,
  ApnsTransport,
  type ClaimedDestination,
  DeliveryWorker,
  newProviderKeyPem,
  type PushRequest,
  pushRequestFor,
  randomIds,
  systemClock,
} from '@foxbell/server';
import { eachInFlight } from './support/in-flight.js';
import { loadedStore, NOTIFICATION } from './support/loaded-store.js';
import { alternatingRounds, printRatios, printResult } from './support/rounds.js';

// Ten timed rounds, the sides' order turning each round: this VM's speed moves by ±15% within a minute.
const ROUNDS = 10;
const NOTIFICATIONS = Number(process.env.BENCH_NOTIFICATIONS ?? 1000);
const DEVICES = 10;
const CONCURRENCY = 500;
const root = fileURLToPath(new URL('..', import.meta.url));
const TOPICS = {
  ios: 'app.foxbell.bench',
  watchos: 'app.foxbell.bench.watchkitapp',
  visionos: 'app.foxbell.bench',
};
const work = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-delivery-'));
const privateKeyPem = newProviderKeyPem();
const key = { privateKeyPem, keyId: 'BENCHKEY01', teamId: 'BENCHTEAM1' };
await writeFile(path.join(work, 'key.p8'), privateKeyPem);

const sim = spawn(
  process.execPath,
  [
    path.join(root, 'packages/server/bin/foxbell-apns-sim.js'),
    `--key-file=${path.join(work, 'key.p8')}`,
    `--key-id=${key.keyId}`,
    `--team-id=${key.teamId}`,
    `--ca-out=${path.join(work, 'ca.pem')}`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const simUrls = await new Promise<{ push: string; control: string }>((resolve, reject) => {
  let out = '';
  sim.stdout?.on('data', (chunk) => {
    out += chunk;
    const push = /listening on (https:\/\/\S+)/.exec(out)?.[1];
    const control = /control API on (http:\/\/\S+)/.exec(out)?.[1];
    if (push && control) resolve({ push, control });
  });
  sim.on('exit', (code) => reject(new Error(`the simulator exited with ${code}`)));
});
const ca = await readFile(path.join(work, 'ca.pem'), 'utf8');
const clearSimulator = () => fetch(`${simUrls.control}/v1/pushes`, { method: 'DELETE' });
/** Every push of a run must have reached the simulator and been accepted, or the figure means nothing. */
async function expectAccepted(count: number, who: string): Promise<void> {
  // Counts, not the history: the simulator remembers only the newest pushes.
  const { counts } = (await (await fetch(`${simUrls.control}/v1/pushes`)).json()) as {
    counts: { by_status: Record<string, number> };
  };
  const accepted = counts.by_status['200'] ?? 0;
  if (accepted !== count) throw new Error(`${who}: the simulator accepted ${accepted} pushes, not ${count}`);
}

/**
 * Like APNs, the simulator allows one stream until a connection shows a valid token: each side
 * pushes this once, untimed, so its connection is open and trusted before its clock starts.
 */
function warmUpRequest(): PushRequest {
  return {
    pushToken: 'ab'.repeat(32),
    headers: { 'apns-push-type': 'alert', 'apns-topic': TOPICS.ios, 'apns-id': randomUUID() },
    payload: JSON.stringify({ aps: { alert: 'warm-up' } }),
  };
}

/** Our APNs client, its connection opened and trusted by one untimed push, as node-apn's is. */
async function warmedUpClient(): Promise<ApnsClient> {
  const client = new ApnsClient({ url: simUrls.push, ca, key, clock: systemClock });
  const warm = await client.push(warmUpRequest());
  if (warm.kind !== 'response' || warm.status !== 200) throw new Error(`warm-up: ${JSON.stringify(warm)}`);
  return client;
}

/** Ours: a worker delivers everything queued; the clock stops when the last attempt is recorded. */
async function runFoxbell(round: number, pushTokens: string[]): Promise<number> {
  const dir = path.join(work, `store-${round}`);
  const { store, allRecorded } = await loadedStore(
    dir,
    pushTokens.map((key) => ({ address: { provider: 'apns', key, data: null } })),
    NOTIFICATIONS,
  );
  const client = await warmedUpClient();
  const worker = new DeliveryWorker({
    store,
    transports: { apns: new ApnsTransport(client, TOPICS) },
    clock: systemClock,
    concurrency: CONCURRENCY,
  });
  const started = performance.now();
  worker.start();
  await allRecorded;
  const seconds = (performance.now() - started) / 1000;
  if ((await store.nextDeliveryAt()) !== undefined)
    throw new Error('foxbell: work left after every push was recorded');
  await worker.stop();
  await client.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return (NOTIFICATIONS * DEVICES) / seconds;
}

/** The baseline: the same payloads to the same push tokens, straight through @parse/node-apn. */
async function runNodeApn(requests: PushRequest[]): Promise<number> {
  const apn = createRequire(path.join(root, 'packages/server/package.json'))('@parse/node-apn');
  const provider = new apn.Provider({
    token: { key: privateKeyPem, keyId: key.keyId, teamId: key.teamId },
    address: '127.0.0.1',
    port: Number(new URL(simUrls.push).port),
    ca,
    production: true,
    connectionRetryLimit: 0,
  });
  const request = warmUpRequest();
  const warmUp = new apn.Notification();
  warmUp.rawPayload = JSON.parse(request.payload);
  warmUp.topic = request.headers['apns-topic'];
  warmUp.pushType = 'alert';
  const warm = await provider.send(warmUp, request.pushToken);
  if (warm.failed.length > 0) throw new Error(`node-apn warm-up: ${JSON.stringify(warm.failed)}`);
  const started = performance.now();
  const failures: unknown[] = [];
  // The same number of pushes in flight as the worker allows.
  await eachInFlight(requests, CONCURRENCY, async (request) => {
    const note = new apn.Notification();
    note.rawPayload = JSON.parse(request.payload);
    note.pushType = 'alert';
    note.topic = request.headers['apns-topic'];
    note.priority = Number(request.headers['apns-priority']);
    note.expiry = Number(request.headers['apns-expiration']);
    note.id = request.headers['apns-id'];
    const result = await provider.send(note, request.pushToken);
    failures.push(...result.failed);
  });
  const seconds = (performance.now() - started) / 1000;
  await provider.shutdown();
  if (failures.length > 0) {
    throw new Error(`node-apn: ${failures.length} pushes failed, first: ${JSON.stringify(failures[0])}`);
  }
  return requests.length / seconds;
}

/**
 * Our HTTP/2 client alone, without the worker's bookkeeping: the same requests, as many in flight.
 * Beside node-apn it says how much of the gap is the client's and how much the store's, and where
 * the simulator's own ceiling lies (it runs on one core: a client light enough is held by it).
 */
async function runApnsClient(requests: PushRequest[]): Promise<number> {
  const client = await warmedUpClient();
  const started = performance.now();
  await eachInFlight(requests, CONCURRENCY, async (request) => {
    const result = await client.push(request);
    if (result.kind !== 'response' || result.status !== 200)
      throw new Error(`push: ${JSON.stringify(result)}`);
  });
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  return requests.length / seconds;
}

/** NOTIFICATIONS notifications, each to every push token, in the order the worker sends them. */
function baselineRequests(pushTokens: string[]): PushRequest[] {
  const now = Date.now();
  const ids = Array.from({ length: NOTIFICATIONS }, () => randomIds.id('ntf'));
  return Array.from({ length: NOTIFICATIONS * DEVICES }, (_, index) => {
    const destination: ClaimedDestination = {
      notificationId: ids[Math.floor(index / DEVICES)] as string,
      deviceId: `dev_${index % DEVICES}`,
      platform: 'ios',
      address: { provider: 'apns', key: pushTokens[index % DEVICES] as string, data: null },
      addressSince: now,
      unread: null,
      pushId: randomUUID(),
      attempt: 1,
      senderName: 'Bench',
      notification: NOTIFICATION,
      createdAt: now,
      expiresAt: now + 86_400_000,
    };
    return pushRequestFor(destination, TOPICS);
  });
}

process.on('exit', () => sim.kill('SIGTERM'));
/** One side's run, with every push it made checked at the simulator. */
async function measure(
  side: 'foxbell' | 'node-apn' | 'apns-client',
  round: number,
  pushTokens: string[],
): Promise<number> {
  await clearSimulator();
  const rate =
    side === 'foxbell'
      ? await runFoxbell(round, pushTokens)
      : side === 'node-apn'
        ? await runNodeApn(baselineRequests(pushTokens))
        : await runApnsClient(baselineRequests(pushTokens));
  await expectAccepted(NOTIFICATIONS * DEVICES + 1, side);
  return rate;
}

// The same push tokens on both sides: one per device, each sent every notification.
const pushTokens = Array.from({ length: DEVICES }, () => randomUUID().replaceAll('-', '').repeat(2));
const rounds = await alternatingRounds(ROUNDS, {
  foxbell: (round) => measure('foxbell', round, pushTokens),
  'node-apn': (round) => measure('node-apn', round, pushTokens),
  'apns-client': (round) => measure('apns-client', round, pushTokens),
});
sim.kill('SIGTERM');
await rm(work, { recursive: true, force: true });

console.log(
  `${cpus().length} CPUs, ${NOTIFICATIONS} notifications x ${DEVICES} devices, ${CONCURRENCY} pushes in flight, ${ROUNDS} rounds, median`,
);
printRatios('our APNs client alone over node-apn', rounds['apns-client'], rounds['node-apn']);
printResult('delivery', 'destinations pushed/s', rounds.foxbell, rounds['node-apn']);
