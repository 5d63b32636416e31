// Destinations pushed per second by Foxbell's Web Push delivery (worker: route, lease, encrypt,
// VAPID, HTTP push, record on SQLite), against a bare script pushing the same payloads to the same
// subscriptions with the `web-push` library alone (its sendNotification), both to one local push
// service (its own process, TLS, checking every VAPID token and decrypting every payload), in
// the same run.
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:https';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The built package, as users run it.
import {
  DeliveryWorker,
  openSqliteStore,
  parsePushHosts,
  randomIds,
  systemClock,
  VapidKeySource,
  WebPushTransport,
  webPushPayload,
} from '@foxbell/server';
import type { Subscription } from '@foxbell/test-support/web-push-service';
import { eachInFlight } from './support/in-flight.js';
import { loadedStore, NOTIFICATION } from './support/loaded-store.js';
import { alternatingRounds, printResult } from './support/rounds.js';

const ROUNDS = 6;
const NOTIFICATIONS = Number(process.env.BENCH_NOTIFICATIONS ?? 300);
const DEVICES = 10;
const CONCURRENCY = 100;
const SUBJECT = 'mailto:bench@example.com';
const root = fileURLToPath(new URL('..', import.meta.url));
const webPush = createRequire(path.join(root, 'packages/server/package.json'))('web-push');

const work = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-web-push-'));
// One key pair for both sides: ours keeps it in the store it opens, the baseline is handed it.
const keyStore = openSqliteStore({ dataDir: path.join(work, 'keys') });
const vapid = await new VapidKeySource(keyStore).keys();
await keyStore.close();

type Message = Record<string, unknown>;
const service: ChildProcess = fork(
  fileURLToPath(new URL('./support/web-push-service-child.ts', import.meta.url)),
  [vapid.publicKey],
  {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  },
);
const waiting: ((message: Message) => void)[] = [];
service.on('message', (message: Message) => waiting.shift()?.(message));
const next = () => new Promise<Message>((resolve) => waiting.push(resolve));
const ask = (message: Message) => {
  const reply = next();
  service.send(message);
  return reply;
};
const ready = (await next()) as { url: string; host: string; ca: string };
const hosts = parsePushHosts(ready.host);
if (!hosts.ok) throw new Error(hosts.problem);

/** Every push of a run must have reached the service and been accepted, or the figure means nothing. */
async function expectAccepted(count: number, who: string): Promise<void> {
  const { accepted, rejected } = (await ask({ ask: 'accepted' })) as { accepted: number; rejected: string[] };
  if (accepted !== count)
    throw new Error(`${who}: ${accepted} pushes accepted, not ${count}; rejected: ${rejected[0]}`);
}

/** Ours: a worker delivers everything queued; the clock stops when the last attempt is recorded. */
async function runFoxbell(round: number, subscriptions: Subscription[]): Promise<number> {
  const dir = path.join(work, `store-${round}`);
  const { store, allRecorded } = await loadedStore(
    dir,
    subscriptions.map((subscription) => ({ address: addressOf(subscription) })),
    NOTIFICATIONS,
  );
  // The deployment's key pair, as every process of it reads it.
  await store.settingOnce('web_push_vapid_keys', JSON.stringify(vapid));
  const keys = new VapidKeySource(store);
  const transport = new WebPushTransport({
    keys: () => keys.keys(),
    subject: SUBJECT,
    hosts: hosts.ok ? hosts.hosts : (undefined as never),
    clock: systemClock,
    ca: ready.ca,
  });
  const worker = new DeliveryWorker({
    store,
    transports: { 'web-push': transport },
    unreadFor: ['web-push'],
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
  await transport.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return (NOTIFICATIONS * DEVICES) / seconds;
}

/** A subscription as a device's push address. */
function addressOf(subscription: Subscription) {
  return { provider: 'web-push', key: subscription.endpoint, data: { ...subscription.keys, appUrl: null } };
}

/** The baseline: the same payloads to the same subscriptions, through web-push's sendNotification. */
async function runWebPush(subscriptions: Subscription[]): Promise<number> {
  const now = Date.now();
  const jobs = Array.from({ length: NOTIFICATIONS * DEVICES }, (_, index) => {
    const subscription = subscriptions[index % DEVICES] as Subscription;
    const destination = {
      notificationId: randomIds.id('ntf'),
      platform: 'ios' as const,
      address: addressOf(subscription),
      addressSince: now,
      unread: 1,
      pushId: randomUUID(),
      senderName: 'Bench',
      notification: NOTIFICATION,
      expiresAt: now + 86_400_000,
    };
    return { subscription, payload: webPushPayload(destination) };
  });
  // Kept-alive connections with the service's CA, as ours has.
  const agent = new Agent({ keepAlive: true, ca: ready.ca });
  const options = {
    vapidDetails: { subject: SUBJECT, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
    TTL: 86_400,
    urgency: 'normal',
    agent,
  };
  const started = performance.now();
  await eachInFlight(jobs, CONCURRENCY, (job) =>
    webPush.sendNotification(job.subscription, job.payload, options),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return jobs.length / seconds;
}

const { subscriptions } = (await ask({ ask: 'subscribe', count: DEVICES })) as {
  subscriptions: Subscription[];
};
async function measure(side: 'foxbell' | 'web-push', round: number): Promise<number> {
  await ask({ ask: 'clear' });
  const rate = side === 'foxbell' ? await runFoxbell(round, subscriptions) : await runWebPush(subscriptions);
  await expectAccepted(NOTIFICATIONS * DEVICES, side);
  return rate;
}

const rounds = await alternatingRounds(ROUNDS, {
  foxbell: (round) => measure('foxbell', round),
  'web-push': (round) => measure('web-push', round),
});
service.disconnect();
await rm(work, { recursive: true, force: true });

console.log(
  `${cpus().length} CPUs, ${NOTIFICATIONS} notifications x ${DEVICES} subscriptions, ${CONCURRENCY} pushes in flight, ${ROUNDS} rounds, median`,
);
printResult('web-push', 'destinations pushed/s', rounds.foxbell, rounds['web-push']);
