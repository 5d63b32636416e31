// Start-up of `notify --version` against a bare `node -e ''` (one process each, in rounds whose order
// turns), and the rest of the start, timed by `notify send --dry-run` (the parser, the send command's
// handler, the SDK and its field rules) beside them. `--version` is handled before the CLI loads.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { alternatingRounds, printRatios, printResult } from './support/rounds.js';
import { median } from './support/stats.js';

const ROUNDS = 30;
const notifyBin = fileURLToPath(new URL('../packages/cli/bin.cjs', import.meta.url));

/** A dry run needs an address and a token to show, and sends nothing. */
const DRY_RUN_ENV = {
  ...process.env,
  NOTIFY_BASE_URL: 'http://127.0.0.1:9',
  NOTIFY_TOKEN: `fox_send_${'a'.repeat(32)}`,
};
const DRY_RUN = [notifyBin, 'send', 'Build passed', '--scene', 'rocket', '--dry-run', '--quiet'];

function timeOf(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: DRY_RUN_ENV,
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return elapsed;
}

// Each round times the three one after another, in an order that turns each round.
const rounds = await alternatingRounds(
  ROUNDS,
  {
    'notify --version': () => timeOf([notifyBin, '--version']),
    "node -e ''": () => timeOf(['-e', '']),
    'notify send --dry-run': () => timeOf(DRY_RUN),
  },
  (ms) => `${ms.toFixed(1)} ms`,
);
const notify = rounds['notify --version'];
const bare = rounds["node -e ''"];
const dryRun = rounds['notify send --dry-run'];
console.log(
  `medians over ${ROUNDS} rounds: node -e '' ${median(bare).toFixed(1)} ms, notify --version ${median(notify).toFixed(1)} ms ` +
    `(${(median(notify) - median(bare)).toFixed(1)} ms more), notify send --dry-run ${median(dryRun).toFixed(1)} ms`,
);
printRatios('notify send --dry-run over node -e', dryRun, bare);
printResult('cli-start', 'ms for notify --version', notify, bare, 1);
