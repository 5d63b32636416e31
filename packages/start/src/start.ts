// `pnpm start`: builds what is stale, starts foxbell-server in dev mode (embedded SQLite, the
// built-in APNs simulator, a dev account with three simulated devices), saves its token and URL
// as notify's default profile, sends a welcome notification on the first start, and says what to
// try. Run by `tsx` from the repository root, so it needs no build of its own.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireNodeFloor } from '@foxbell/server/node-floor';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const BUILT = ['sdk', 'cli', 'server'];

/** The modification times of every file under `dir`. */
function mtimes(dir: string): number[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
}

/** A package whose dist is missing or older than its sources or build settings. */
function stale(name: string): boolean {
  const dir = path.join(root, 'packages', name);
  const built = mtimes(path.join(dir, 'dist'));
  if (built.length === 0) return true;
  const sources = [
    ...mtimes(path.join(dir, 'src')),
    ...['tsup.config.ts', 'package.json'].map((file) => statSync(path.join(dir, file)).mtimeMs),
  ];
  return Math.max(...sources) > Math.min(...built);
}

function ensureBuilt(): void {
  if (!BUILT.some(stale)) return;
  process.stdout.write('Building the packages (once, and again after changes)…\n');
  const build = spawnSync('pnpm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) {
    process.stderr.write('pnpm start: the build failed; run `pnpm build` to see why\n');
    process.exit(1);
  }
}

/** Starts the server and resolves with its base URL once it takes requests. */
function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [path.join(root, 'packages/server/bin/foxbell-server.js'), '--dev', '--log-level', 'warn'],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        // The one line every start prints, as the management API's start-up contract says.
        process.stdout.write(`foxbell-server listening on ${match[1]}\n`);
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve({ child, url: match[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`foxbell-server exited with ${code} before it listened`)));
  });
}

/** Saves the dev token and base URL as notify's default profile, through notify itself. */
function saveProfile(url: string, token: string, env: NodeJS.ProcessEnv): boolean {
  const login = spawnSync(
    process.execPath,
    [path.join(root, 'packages/cli/bin.cjs'), 'login', '--base-url', url, '--quiet'],
    { cwd: root, env, input: `${token}\n`, encoding: 'utf8' },
  );
  if (login.status !== 0)
    process.stderr.write(`pnpm start: could not save notify's profile: ${login.stderr}`);
  return login.status === 0;
}

/** The server, once started: stopped too if this script fails after starting it. */
let server: ChildProcess | undefined;

async function main(): Promise<void> {
  // Before the build: the build tools need a current Node.js as well.
  requireNodeFloor('pnpm start');
  ensureBuilt();
  // Built just now when it was not: so imported only after.
  const { SERVER_SETTINGS, devSessionFile, readDevSession } = await import('@foxbell/server/dev-start');
  // The server's own defaults: a fixed port, so the device page keeps its address between starts.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FOXBELL_PORT: process.env.FOXBELL_PORT ?? String(SERVER_SETTINGS.port.default),
  };
  const dataDir = path.resolve(root, env.FOXBELL_DATA ?? SERVER_SETTINGS.data.default);
  env.FOXBELL_DATA = dataDir;
  const devFile = devSessionFile(dataDir);
  const firstStart = (await readDevSession(dataDir)) === undefined;

  const { child, url } = await startServer(env);
  server = child;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(process.exitCode ?? code ?? 1));

  const session = await readDevSession(dataDir);
  if (!session) throw new Error(`foxbell-server --dev saved no session in ${devFile}`);
  const { token } = session;
  const saved = saveProfile(url, token, env);
  let welcome: string | undefined;
  if (firstStart) {
    const { Foxbell } = await import('@foxbell/sdk');
    const sent = await new Foxbell({ token, baseUrl: url }).send({
      title: 'Welcome to Foxbell',
      message: 'This came through the API, a delivery worker and the APNs simulator.',
      scene: 'fireworks',
      scene_params: { bursts: 5 },
    });
    welcome = sent.id ?? undefined;
  }

  const notify = 'npx notify';
  process.stdout.write(
    [
      '',
      `  Devices:  ${url}/devices   (an iPhone, an Apple Watch and a Vision Pro, live)`,
      firstStart ? `  Token:    ${token}   (shown once; kept in ${devFile})` : `  Token:    in ${devFile}`,
      saved ? "            saved as notify's default profile" : '',
      '',
      '  Try:',
      `    ${notify} send "Build passed" --scene rocket --param color=green`,
      `    curl "${url}/v1/send/${firstStart ? token : `$(node -p "require('${devFile}').token")`}?message=Hello"`,
      `    ${notify} status ${welcome ?? '<id from notify send>'} --wait`,
      '',
    ]
      .filter((line, index, lines) => line !== '' || lines[index - 1] !== '')
      .join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`pnpm start: ${(error as Error).message}\n`);
  server?.kill('SIGTERM');
  process.exitCode = 1;
});
