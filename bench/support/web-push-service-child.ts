// The local push service in a process of its own, for `pnpm bench web-push`: decrypting each
// push and checking its VAPID token costs the service CPU, which should not be taken from the
// side being measured. Driven over IPC: it prints nothing; the parent asks and it responds.
import { LocalPushService } from '@foxbell/test-support/web-push-service';

const vapidKey = process.argv[2] as string;
const service = await LocalPushService.start({ vapidKey: async () => vapidKey });

type Ask = { ask: 'subscribe'; count: number } | { ask: 'accepted' } | { ask: 'clear' };
process.on('message', (message: Ask) => {
  if (message.ask === 'subscribe') {
    process.send?.({ subscriptions: Array.from({ length: message.count }, () => service.subscribe()) });
  } else if (message.ask === 'accepted') {
    process.send?.({
      accepted: service.received.filter((push) => push.status === 201).length,
      rejected: service.received.filter((push) => push.rejection !== undefined).map((push) => push.rejection),
    });
  } else {
    service.received.length = 0;
    process.send?.({ cleared: true });
  }
});
process.send?.({ ready: true, url: service.url, host: service.host, ca: service.ca });
process.on('disconnect', () => void service.close().then(() => process.exit(0)));
