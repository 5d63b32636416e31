// Start-up overhead of `notify --version` over a bare `node -e ''`, in alternating runs of one
// process each, so both see the same machine state. `--version` is answered before the CLI loads;
// the rest of the start (the parser, the send command's handler, the SDK and its field rules) is
// measured by `notify send --dry-run`, printed beside it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

// One of each first: the disk cache warms up for both.
timeOf(['-e', '']);
timeOf([notifyBin, '--version']);
timeOf(DRY_RUN);
const bare: number[] = [];
const notify: number[] = [];
const dryRun: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bare.push(timeOf(['-e', '']));
  notify.push(timeOf([notifyBin, '--version']));
  dryRun.push(timeOf(DRY_RUN));
}
const value = median(notify) - median(bare);
const baseline = median(bare);
console.log(`node -e '':          median ${baseline.toFixed(1)} ms over ${ROUNDS} runs`);
console.log(`notify --version:    median ${median(notify).toFixed(1)} ms over ${ROUNDS} runs`);
console.log(
  `notify send --dry-run: median ${median(dryRun).toFixed(1)} ms over ${ROUNDS} runs (${(median(dryRun) / baseline).toFixed(2)} times node -e)`,
);
console.log(`overhead:            ${value.toFixed(1)} ms (goal: under 80 ms)`);
console.log(
  JSON.stringify({
    bench: 'cli-start',
    value: Number(value.toFixed(1)),
    unit: 'ms over node -e',
    baseline: Number(baseline.toFixed(1)),
    ratio: Number((median(notify) / baseline).toFixed(2)),
  }),
);
