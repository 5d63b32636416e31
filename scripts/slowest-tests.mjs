// A vitest reporter: after the run, the slowest files and tests, each with its project and time,
// and the machine's load average (a busy machine makes every figure longer). `pnpm test:slowest`
// adds it to the usual report; arguments after it pick tests as `vitest run` does (`--project
// server`, a file). Nothing is built first: run `pnpm build` once.
import { loadavg } from 'node:os';
import path from 'node:path';

const SHOWN = 15;
const seconds = (ms) => `${(ms / 1000).toFixed(1).padStart(6)} s`;

export default class SlowestTests {
  started = Date.now();

  onTestRunEnd(testModules) {
    const files = testModules.map((module) => {
      const { environmentSetupDuration, prepareDuration, collectDuration, setupDuration, duration } =
        module.diagnostic();
      return {
        name: `[${module.project.name}] ${path.relative(process.cwd(), module.moduleId)}`,
        // Import and set-up included: what the file costs the run.
        ms: environmentSetupDuration + prepareDuration + collectDuration + setupDuration + duration,
      };
    });
    const tests = testModules.flatMap((module) =>
      [...module.children.allTests()].map((test) => ({
        name: `[${module.project.name}] ${path.relative(process.cwd(), module.moduleId)} > ${test.fullName}`,
        ms: test.diagnostic()?.duration ?? 0,
      })),
    );
    const slowest = (rows) => [...rows].sort((a, b) => b.ms - a.ms).slice(0, SHOWN);
    const lines = [`\nThe ${SHOWN} slowest files:`];
    for (const file of slowest(files)) lines.push(`${seconds(file.ms)}  ${file.name}`);
    lines.push(`\nThe ${SHOWN} slowest tests:`);
    for (const test of slowest(tests)) lines.push(`${seconds(test.ms)}  ${test.name}`);
    lines.push(
      `\n${tests.length} tests in ${files.length} files, ${seconds(Date.now() - this.started).trim()}; load average ${loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
