import { readConfig, USAGE } from '../config/server-settings.js';
import { systemClock } from '../kernel/clock.js';
import { settingsErrors } from '../kernel/settings.js';
import { serve } from './serve.js';
import { runWorker } from './worker.js';

/** foxbell-server serving, or as a delivery worker (`worker`): reads the settings once, then runs. */
export async function runServer(args: string[]): Promise<void> {
  const read = readConfig(args, process.env);
  if (read.ok === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (!read.ok) {
    process.stderr.write(settingsErrors('foxbell-server', read.problems));
    process.exit(2);
  }
  const { config } = read;
  for (const warning of read.warnings) process.stderr.write(`foxbell-server: warning: ${warning}\n`);
  if (config.command === 'worker') return runWorker(config, systemClock);
  return serve(config, systemClock);
}
