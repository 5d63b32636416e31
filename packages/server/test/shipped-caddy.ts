import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAfterTest } from '@foxbell/test-support';
import { expect } from 'vitest';
import { httpsJson } from './processes.js';

const CADDYFILE = fileURLToPath(new URL('../../../deploy/Caddyfile', import.meta.url));

/**
 * Caddy running deploy/Caddyfile as it ships, in `dir`, killed after the test. Only global options
 * are put before the shipped file (a test's own ports, no admin endpoint, its local CA kept out of
 * this machine's trust store), and the variables it reads: what the file says about the site, its
 * health checks and retries is what the test meets. Caddy's output is kept for the test to read
 * (`log`).
 */
export async function runShippedCaddy({
  dir,
  globals = [],
  domain,
  upstreams,
  tryDuration,
}: {
  dir: string;
  /** Global options beyond `admin off` and `skip_install_trust`, one per line. */
  globals?: string[];
  /** FOXBELL_DOMAIN: a name Caddy issues a certificate for, or an `http://` address. */
  domain: string;
  /** The API processes, `host:port` each. */
  upstreams: string[];
  /** FOXBELL_UPSTREAM_TRY_DURATION, a Caddy duration; else the shipped 10 s. */
  tryDuration?: string;
}): Promise<{ log: () => string }> {
  return runCaddy({
    dir,
    globals,
    site: await readFile(CADDYFILE, 'utf8'),
    env: {
      FOXBELL_DOMAIN: domain,
      FOXBELL_UPSTREAM: upstreams.join(' '),
      ...(tryDuration === undefined ? {} : { FOXBELL_UPSTREAM_TRY_DURATION: tryDuration }),
    },
  });
}

/**
 * Caddy running `site` (a Caddyfile's sites: the shipped one, or the one docs/iphone.md writes),
 * in `dir`, killed after the test, with the same global options as `runShippedCaddy`. Its local
 * CA is in `dir`/xdg-data/caddy/pki/authorities/local/.
 */
export async function runCaddy({
  dir,
  globals = [],
  site,
  env = {},
}: {
  dir: string;
  globals?: string[];
  site: string;
  /** Variables the Caddyfile reads. */
  env?: Record<string, string>;
}): Promise<{ log: () => string }> {
  const caddyfile = path.join(dir, 'Caddyfile');
  const options = ['admin off', 'skip_install_trust', ...globals].map((line) => `\t${line}\n`).join('');
  await writeFile(caddyfile, `{\n${options}}\n\n${site}`);
  const caddy = killAfterTest(
    spawn('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        XDG_DATA_HOME: path.join(dir, 'xdg-data'),
        XDG_CONFIG_HOME: path.join(dir, 'xdg-config'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let log = '';
  const keep = (chunk: Buffer) => {
    log += chunk;
  };
  caddy.stdout.on('data', keep);
  caddy.stderr.on('data', keep);
  return { log: () => log };
}

/**
 * Waits until Caddy, run in `dir`, responds to `base`/healthz with 200 over HTTPS with a certificate of
 * its local CA. Returns the CA's root certificate (to trust it) and its intermediate (which Caddy
 * presents with each certificate), both PEM.
 */
export async function localCaReady(
  dir: string,
  base: string,
): Promise<{ root: string; intermediate: string }> {
  const authority = path.join(dir, 'xdg-data/caddy/pki/authorities/local');
  let root = '';
  await expect
    .poll(
      async () => {
        root = root || (await readFile(path.join(authority, 'root.crt'), 'utf8').catch(() => ''));
        return root ? (await httpsJson(`${base}/healthz`, root).catch(() => ({ status: 0 }))).status : 0;
      },
      { timeout: 20_000, interval: 200 },
    )
    .toBe(200);
  return { root, intermediate: await readFile(path.join(authority, 'intermediate.crt'), 'utf8') };
}
