// The app code under test: tells the on-call person how last night's backup went. It takes the
// client, so a test can give it one that talks to a fake service.
const { AuthenticationError, FoxbellError } = require('@foxbell/sdk');

/**
 * @param {import('@foxbell/sdk').Foxbell} client
 * @param {{ host: string, ok: boolean, gigabytes: number }} backup
 * @returns {Promise<string>} one line for the backup job's log
 */
async function reportBackup(client, { host, ok, gigabytes }) {
  try {
    const sent = await client.send({
      title: ok ? `Backup of ${host} done` : `Backup of ${host} FAILED`,
      message: ok ? `${gigabytes} GB written.` : 'Nothing was written: look at the job log.',
      // A failed backup may wake someone; a good one waits quietly on the lock screen.
      level: ok ? 'passive' : 'time-sensitive',
      tag: `backup-${host}`,
    });
    return `reported as ${sent.id}`;
  } catch (error) {
    if (error instanceof AuthenticationError) return 'not reported: the token no longer works';
    if (error instanceof FoxbellError) return `not reported: ${error.code}`;
    throw error;
  }
}

module.exports = { reportBackup };
