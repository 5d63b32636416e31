// Start-up overhead of `notify --version` over a bare `node -e ''`, in alternating runs of one
// process each, so both see the same machine state. The CLI loads its command handlers (and
// with them the SDK, zod and ora) only when a command runs; this measures what every run pays.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROUNDS = 30;
const notifyBin = fileURLToPath(new URL('../packages/cli/bin.cjs', import.meta.url));

function timeOf(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
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
const bare: number[] = [];
const notify: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bare.push(timeOf(['-e', '']));
  notify.push(timeOf([notifyBin, '--version']));
}
const value = median(notify) - median(bare);
const baseline = median(bare);
console.log(`node -e '':          median ${baseline.toFixed(1)} ms over ${ROUNDS} runs`);
console.log(`notify --version:    median ${median(notify).toFixed(1)} ms over ${ROUNDS} runs`);
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
