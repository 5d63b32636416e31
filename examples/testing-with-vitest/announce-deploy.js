// The app code under test: tells the team's devices that a deploy finished, and says how far
// the notification got. It takes the client, so a test can give it one that talks to a fake.
import { FoxbellError, QuotaExceededError, TimeoutError, UndeliverableError } from '@foxbell/sdk';

/**
 * @param {import('@foxbell/sdk').Foxbell} client
 * @param {{ service: string, version: string, ok: boolean }} deploy
 * @returns {Promise<string>} one line for the deploy log
 */
export async function announceDeploy(client, { service, version, ok }) {
  try {
    const sent = await client.send({
      title: ok ? `✅ ${service} ${version} is live` : `❌ ${service} ${version} failed`,
      message: ok ? `Deployed ${service} ${version}.` : `The deploy of ${service} ${version} failed.`,
      scene: ok ? 'rocket' : 'notice',
      level: ok ? 'active' : 'time-sensitive',
      // One notification per service: the next deploy replaces it on the devices.
      tag: `deploy-${service}`,
    });
    const record = await client.waitFor(sent.id, { until: 'sent_to_push', timeoutMs: 30_000 });
    return `announced on ${record.destinations.length} devices`;
  } catch (error) {
    // No device will get it: dropped (its reason), or every device's push failed (each one's reason).
    if (error instanceof UndeliverableError) {
      const { record } = error;
      const why =
        record.reason ?? record.destinations.map((device) => device.reason ?? device.state).join(', ');
      return `not delivered: ${why}`;
    }
    if (error instanceof QuotaExceededError) return 'not announced: the monthly quota is used up';
    if (error instanceof TimeoutError) return 'announced, but no device has it yet';
    if (error instanceof FoxbellError) return `not announced: ${error.code}`;
    throw error;
  }
}
