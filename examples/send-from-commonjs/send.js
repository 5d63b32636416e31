// NOTIFY_TOKEN=fox_send_… NOTIFY_BASE_URL=http://127.0.0.1:8787 node send.js "Disk 91% full"
// The SDK ships CommonJS beside ES modules: require() gets the same client and error classes.
const { Foxbell, FoxbellError, RateLimitError, ValidationError } = require('@foxbell/sdk');

async function main() {
  const client = new Foxbell(); // NOTIFY_TOKEN and NOTIFY_BASE_URL
  const sent = await client.send({
    message: process.argv[2] ?? 'Hello from CommonJS',
    title: 'Disk space',
    level: 'time-sensitive',
    tag: 'disk-space', // a later alert replaces this one on the device
  });
  console.log(`accepted ${sent.id}`);
}

main().catch((error) => {
  if (error instanceof ValidationError) console.error(`not sent: ${error.field ?? ''} ${error.message}`);
  else if (error instanceof RateLimitError)
    console.error(`not sent: rate limited, try again in ${error.retryAfter ?? 60} s`);
  else if (error instanceof FoxbellError) console.error(`not sent: ${error.message} (${error.code})`);
  else throw error;
  process.exitCode = 1;
});
