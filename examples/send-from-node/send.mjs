// NOTIFY_TOKEN=fox_send_… NOTIFY_BASE_URL=http://127.0.0.1:8787 node send.mjs "Backup finished"
import { Foxbell, FoxbellError, UndeliverableError, ValidationError } from '@foxbell/sdk';

try {
  // Reads NOTIFY_TOKEN and NOTIFY_BASE_URL; throws invalid_config when one is missing.
  const client = new Foxbell({
    onRetry: ({ attempt, waitMs, reason }) => console.error(`retry ${attempt} in ${waitMs} ms (${reason})`),
  });
  const sent = await client.send({
    message: process.argv[2] ?? 'Hello from Node',
    title: 'Backups',
    scene: 'rocket',
    scene_params: { color: 'green', countdown: 3 },
    tag: 'nightly-backup',
  });
  console.log(`accepted ${sent.id} (${sent.rate_limit?.remaining ?? '?'} sends left this month)`);
  if (sent.id) {
    const record = await client.waitFor(sent.id, { until: 'sent_to_push', timeoutMs: 30_000 });
    console.log(
      `${record.status}: ${record.destinations.map((d) => `${d.platform} ${d.state}`).join(', ') || 'no devices yet'}`,
    );
  }
} catch (error) {
  if (error instanceof UndeliverableError) console.error(`sent, but it will not arrive: ${error.message}`);
  else if (error instanceof ValidationError) console.error(`not sent: ${error.field ?? ''} ${error.message}`);
  else if (error instanceof FoxbellError) console.error(`not sent: ${error.message} (${error.code})`);
  else throw error;
  process.exitCode = 1;
}
