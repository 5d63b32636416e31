// `pnpm bench <name>` runs bench/<name>.ts. Each bench measures our code and a baseline in the
// same run and prints, as its last line, {"bench","value","unit","baseline","ratio"}.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const name = process.argv[2];
const names = readdirSync(dir)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -3));
if (!name || !existsSync(`${dir}/${name}.ts`)) {
  console.error(`usage: pnpm bench <name>   (one of: ${names.join(', ')})`);
  process.exit(2);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', `${dir}/${name}.ts`, ...process.argv.slice(3)],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
