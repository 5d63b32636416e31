// `pnpm start`: builds what is stale, starts foxbell-server in dev mode (embedded SQLite, the
// built-in APNs simulator, a dev account with three simulated devices), saves its token and URL
// as notify's profile `dev` (and as the default profile when there is none), sends a welcome
// notification on the first start, and says what to try. Run by `tsx` from the repository root,
// so it needs no build of its own.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { requireNodeFloor } from '@foxbell/server/node-floor';
import { runBuildSteps } from './build-steps.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const BUILT = ['sdk', 'cli', 'server'];
/** What each build makes: its dist/, and for the server the web app's bundle of the SDK too. */
const OUTPUTS: Record<string, string[]> = { sdk: ['dist'], cli: ['dist'], server: ['dist', 'web-app/build'] };

/** The modification times of every file under `dir`. */
function mtimes(dir: string): number[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
}

/** A package whose build output is missing or older than its sources or build settings. */
function stale(name: string): boolean {
  const dir = path.join(root, 'packages', name);
  const outputs = (OUTPUTS[name] ?? ['dist']).map((output) => mtimes(path.join(dir, output)));
  if (outputs.some((output) => output.length === 0)) return true;
  const built = outputs.flat();
  const sources = [
    ...mtimes(path.join(dir, 'src')),
    ...['tsup.config.ts', 'package.json'].map((file) => statSync(path.join(dir, file)).mtimeMs),
  ];
  return Math.max(...sources) > Math.min(...built);
}

/** Builds the three packages, in dependency order, when any is stale, with progress. */
async function ensureBuilt(): Promise<void> {
  if (!BUILT.some(stale)) return;
  process.stdout.write('Building the packages (on the first start, and after changes):\n');
  const failure = await runBuildSteps(
    BUILT.map((name) => ({
      name: `@foxbell/${name}`,
      command: 'pnpm',
      args: ['run', 'build'],
      cwd: path.join(root, 'packages', name),
    })),
    process.stdout,
  );
  if (failure) {
    process.stderr.write(
      `${failure.errors}pnpm start: building ${failure.failed} failed; the lines above say why\n`,
    );
    process.exit(1);
  }
}

/** Starts the server and resolves with its base URL once it takes requests. */
function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [path.join(root, 'packages/server/bin/foxbell-server.js'), '--dev', '--log-level', 'warn'],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk;
  });
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
        // From now on the server's warnings and errors are the user's to see.
        child.stderr?.removeAllListeners('data');
        child.stderr?.pipe(process.stderr);
        resolve({ child, url: match[1] });
      }
    });
    child.on('exit', () => reject(new StartFailure(failureOf(errors, env))));
  });
}

/** The server stopped before it listened: what happened, and what to type. */
class StartFailure extends Error {}

function failureOf(errors: string, env: NodeJS.ProcessEnv): string {
  const port = env.FOXBELL_PORT;
  if (/EADDRINUSE|address already in use/i.test(errors)) {
    return `port ${port} is taken (another pnpm start, or another program): stop it, or run \`pnpm start --port ${Number(port) + 1}\``;
  }
  if (/another foxbell-server is serving sends from/.test(errors)) {
    const running = runningAt(env.FOXBELL_DATA as string);
    return running
      ? `pnpm start is already running at ${running} (its data in ${env.FOXBELL_DATA}): open that one, or stop it (Ctrl-C in its terminal) first`
      : `pnpm start is already running on ${env.FOXBELL_DATA}: use that one, or stop it (Ctrl-C in its terminal) first`;
  }
  return `foxbell-server stopped before it listened:\n${errors.trim()}`;
}

/** Where a pnpm start serving this data said it listens: a second start names it. */
const RUNNING_FILE = 'pnpm-start.url';

function runningAt(dataDir: string): string | undefined {
  try {
    return readFileSync(path.join(dataDir, RUNNING_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Runs the built notify with this environment; its exit code and output. */
function notify(args: string[], env: NodeJS.ProcessEnv, input?: string) {
  return spawnSync(process.execPath, [path.join(root, 'packages/cli/bin.cjs'), ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
  });
}

/**
 * Saves the dev token and base URL as notify's profile `dev`, through notify itself, and as the
 * default profile when there is none or when it is an earlier start's copy of `dev` (the same
 * address): a profile for the user's own service is never replaced.
 */
function saveProfiles(
  url: string,
  token: string,
  env: NodeJS.ProcessEnv,
): { dev: boolean; isDefault: boolean } {
  // One run of notify for both profiles' addresses (tokens are never listed).
  const listed = notify(['config', 'list', '--json'], env);
  const profiles =
    listed.status === 0 ? (JSON.parse(listed.stdout).profiles as Record<string, { base_url?: string }>) : {};
  const urlOf = (profile: string) => profiles[profile]?.base_url;
  const login = (profile: string) => {
    const result = notify(['login', '--base-url', url, '--profile', profile, '--quiet'], env, `${token}\n`);
    if (result.status !== 0)
      process.stderr.write(`pnpm start: could not save notify's profile ${profile}: ${result.stderr}`);
    return result.status === 0;
  };
  const defaultUrl = urlOf('default');
  const ours = defaultUrl === undefined || defaultUrl === urlOf('dev');
  const dev = login('dev');
  return { dev, isDefault: dev && ours && login('default') };
}

/** The server, once started: stopped too if this script fails after starting it. */
let server: ChildProcess | undefined;

/** `pnpm start [--port N]`. */
function optionsOf(argv: string[]): { port: string | undefined } {
  try {
    const { values } = parseArgs({ args: argv, options: { port: { type: 'string' } }, strict: true });
    if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) {
      throw new StartFailure(`--port takes a number, not "${values.port}": pnpm start --port 8799`);
    }
    return { port: values.port };
  } catch (error) {
    if (error instanceof StartFailure) throw error;
    throw new StartFailure(
      `${(error as Error).message}; pnpm start takes --port N (and FOXBELL_* variables)`,
    );
  }
}

async function main(): Promise<void> {
  // Before the build: the build tools need a current Node.js as well.
  requireNodeFloor('pnpm start');
  const options = optionsOf(process.argv.slice(2));
  await ensureBuilt();
  // Built just now when it was not: so imported only after.
  const { SERVER_SETTINGS, devSessionFile, readDevSession } = await import('@foxbell/server/dev-start');
  // The server's own defaults: a fixed port, so the device page keeps its address between starts.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FOXBELL_PORT: options.port ?? process.env.FOXBELL_PORT ?? String(SERVER_SETTINGS.port.default),
  };
  const dataDir = path.resolve(root, env.FOXBELL_DATA ?? SERVER_SETTINGS.data.default);
  env.FOXBELL_DATA = dataDir;
  const devFile = devSessionFile(dataDir);
  const firstStart = (await readDevSession(dataDir)) === undefined;

  const { child, url } = await startServer(env);
  server = child;
  writeFileSync(path.join(dataDir, RUNNING_FILE), `${url}\n`, { mode: 0o600 });
  // A Ctrl-C reaches the whole process group: this process from the terminal, and again from
  // each launcher in between (pnpm, tsx) relaying it. The first one stops the server; the server,
  // in the same group, has had it too and stops once whatever it is sent.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      if (signal === 'SIGINT') process.stdout.write(`\nStopping Foxbell: your data stays in ${dataDir}\n`);
      child.kill(signal);
    });
  }
  child.on('exit', (code) => {
    rmSync(path.join(dataDir, RUNNING_FILE), { force: true });
    process.exit(process.exitCode ?? code ?? 1);
  });

  const session = await readDevSession(dataDir);
  if (!session) throw new Error(`foxbell-server --dev saved no session in ${devFile}`);
  const { token } = session;
  const saved = saveProfiles(url, token, env);
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

  // The token for curl is read from a file by curl itself (`-H @file`): the line works as it is
  // in any shell, and a later start still never shows the token.
  const headersFile = path.join(dataDir, 'curl-headers');
  writeFileSync(headersFile, `Authorization: Bearer ${token}\nContent-Type: application/json\n`, {
    mode: 0o600,
  });
  const profileFlag = saved.isDefault ? '' : ' --profile dev';
  process.stdout.write(
    [
      '',
      `  Devices:  ${url}/devices   (an iPhone, an Apple Watch and a Vision Pro, live)`,
      `  Web app:  ${url}/app/   (a real device: open it, turn notifications on, and approve its code on the device page)`,
      firstStart
        ? `  Token:    ${token}   (kept in ${devFile}; later starts show where, not the token)`
        : `  Token:    in ${devFile}`,
      saved.dev
        ? saved.isDefault
          ? "            saved as notify's profile dev, and as its default profile"
          : "            saved as notify's profile dev (your default profile is left as it was)"
        : '',
      welcome ? '  Sent a welcome notification: it is on the device page.' : '',
      '',
      '  Try:',
      `    npx notify send "Build passed" --scene rocket --param color=green${profileFlag}`,
      `    curl -H @"${headersFile}" -d '{"message":"Hello"}' ${url}/v1/notifications`,
      firstStart && `    curl "${url}/v1/send/${token}?message=Hello"`,
      welcome
        ? `    npx notify status ${welcome} --wait${profileFlag}`
        : `    npx notify send "Deploy done" --scene fireworks --wait${profileFlag}`,
      '',
    ]
      .filter((line) => line !== false)
      .filter((line, index, lines) => line !== '' || lines[index - 1] !== '')
      .join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`pnpm start: ${(error as Error).message}\n`);
  server?.kill('SIGTERM');
  process.exitCode = error instanceof StartFailure ? 2 : 1;
});
