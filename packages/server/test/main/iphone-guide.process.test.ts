import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { subscriptionAt } from '@foxbell/test-support/web-push-service';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, httpsJson, tempDir } from '../processes.js';

/**
 * docs/iphone.md, run: every `sh` block of the guide, in order, as a newcomer on a fresh server
 * would run it, from installing Node.js to the first notification. What differs from a VPS is
 * said here, and nothing else is changed:
 *
 * - The machine is not a VPS: `/usr/local`, `/opt`, `/etc` and `/var/lib` are folders of the
 *   test's own (so are Caddy's), `sudo` is not needed (the test may write there), and the
 *   packages `apt-get` installs are the machine's part (`.ci/run` installs them): the test checks
 *   that they are there.
 * - `git clone` clones this checkout's last commit, not GitHub (which this machine cannot reach).
 * - There is no systemd: `systemctl` is a stand-in that starts the unit as its file says (its
 *   `ExecStart`, `Environment`, `EnvironmentFile` and `LoadCredential`), and Caddy with the
 *   guide's Caddyfile.
 * - There is no domain: `push.example.com` is `localhost`, for which Caddy issues a certificate
 *   from its own CA (curl trusts it through `CURL_CA_BUNDLE`), on ports of the test's own; and the
 *   unit's port 8787 is a free one (admin commands find it through `FOXBELL_BASE_URL`).
 * - What the person reads off a screen (the account key, the token, the iPhone's code) is what the
 *   command before printed, or what the web app's link request was given (its steps on the phone
 *   are the web app's tests).
 */

const GUIDE = fileURLToPath(new URL('../../../../docs/iphone.md', import.meta.url));
const CHECKOUT = fileURLToPath(new URL('../../../../', import.meta.url));

const started: string[] = [];
afterEach(async () => {
  for (const pidFile of started.splice(0)) {
    const pid = Number(await readFile(pidFile, 'utf8').catch(() => ''));
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
});

/** The guide's `sh` blocks, in order. */
async function guideBlocks(): Promise<string[]> {
  const text = await readFile(GUIDE, 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map(([, block]) => block as string);
}

/** The stand-in for systemctl: the unit started as its file says, and Caddy as the guide sets it up. */
function systemctlStandIn(root: string, ports: { api: number; http: number; https: number }): string {
  return `#!/usr/bin/env bash
set -euo pipefail
root=${JSON.stringify(root)}
case "$*" in
  daemon-reload) exit 0 ;;
  "enable --now foxbell-server"|"restart foxbell-server")
    unit="$root/etc/systemd/system/foxbell-server.service"
    creds="$root/run/credentials/foxbell-server"; mkdir -p "$creds" "$root/var/lib/foxbell"
    env=()
    while IFS= read -r line; do
      case "$line" in
        Environment=*) value="\${line#Environment=}"; value="\${value//%d/$creds}"; env+=("$value") ;;
        EnvironmentFile=*) file="\${line#EnvironmentFile=}"; file="\${file#-}"; file="$root\${file}"
          [ -f "$file" ] && while IFS= read -r pair; do [ -n "$pair" ] && env+=("$pair"); done < "$file" ;;
        LoadCredential=*) spec="\${line#LoadCredential=}"; cp "$root\${spec#*:}" "$creds/\${spec%%:*}" ;;
        ExecStart=*) exec_start="$root\${line#ExecStart=}" ;;
      esac
    done < "$unit"
    env+=("FOXBELL_DATA=$root/var/lib/foxbell" "FOXBELL_PORT=${ports.api}")
    (env "\${env[@]}" "$exec_start" >"$root/foxbell.log" 2>&1 & echo $! >"$root/foxbell.pid")
    for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:${ports.api}/healthz" >/dev/null && exit 0; sleep 0.2; done
    cat "$root/foxbell.log" >&2; exit 1 ;;
  "reload caddy")
    printf '{\\n\\tadmin off\\n\\tskip_install_trust\\n\\thttp_port ${ports.http}\\n\\thttps_port ${ports.https}\\n}\\n' >"$root/caddy.conf"
    sed 's/^localhost:${ports.https} {/localhost {/' "$root/etc/caddy/Caddyfile" >>"$root/caddy.conf"
    (HOME="$root" XDG_DATA_HOME="$root/xdg-data" XDG_CONFIG_HOME="$root/xdg-config" \\
      caddy run --config "$root/caddy.conf" --adapter caddyfile >"$root/caddy.log" 2>&1 & echo $! >"$root/caddy.pid")
    for _ in $(seq 1 150); do
      [ -f "$root/xdg-data/caddy/pki/authorities/local/root.crt" ] && curl -sf "https://localhost:${ports.https}/healthz" >/dev/null && exit 0
      sleep 0.2
    done
    cat "$root/caddy.log" >&2; exit 1 ;;
  *) echo "systemctl stand-in: not for '$*'" >&2; exit 2 ;;
esac
`;
}

describe('docs/iphone.md', () => {
  it('takes a fresh server to a notification on the phone, every command as written', async () => {
    const root = await tempDir();
    // Where the person starts: a folder of their own (their HOME stays this machine's, with its
    // npm settings, npm cache and pnpm store).
    const home = path.join(root, 'home');
    const ports = { api: await freePort(), http: await freePort(), https: await freePort() };
    const base = `https://localhost:${ports.https}`;
    // The folders a Debian system has, under the test's root.
    for (const folder of [
      'bin',
      'home',
      'usr/local/bin',
      'opt',
      'etc/systemd/system',
      'etc/caddy',
      'var/lib',
    ]) {
      await mkdir(path.join(root, folder), { recursive: true });
    }
    await writeFile(path.join(root, 'bin', 'systemctl'), systemctlStandIn(root, ports));
    await chmod(path.join(root, 'bin', 'systemctl'), 0o755);
    started.push(path.join(root, 'foxbell.pid'), path.join(root, 'caddy.pid'));

    const said: Record<string, string> = {};
    /** A line of the guide as it runs here (see the list above). */
    const asHere = (line: string) => {
      let here = line
        .replace(/\bsudo /g, '')
        .replace(/(^|[\s"'=:])\/usr\/local\b/g, `$1${root}/usr/local`)
        .replace(/(^|[\s"'=:])\/opt\/foxbell/g, `$1${root}/opt/foxbell`)
        .replace(/(^|[\s"'=:])\/etc\//g, `$1${root}/etc/`)
        .replace(/(^|[\s"'=:])\/var\/lib\//g, `$1${root}/var/lib/`)
        .replace(
          'git clone https://github.com/foxbell/foxbell.git',
          `git clone --quiet file://${CHECKOUT} foxbell`,
        )
        .replaceAll('https://push.example.com', base)
        .replaceAll('push.example.com', `localhost:${ports.https}`)
        .replaceAll('127.0.0.1:8787', `127.0.0.1:${ports.api}`);
      for (const [placeholder, value] of Object.entries(said)) here = here.replaceAll(placeholder, value);
      // Installing packages is the machine's part: they must be there.
      const packages = /^apt-get update && apt-get install -y (.+)$/.exec(here)?.[1];
      if (packages) return `for program in ${packages}; do command -v "$program" >/dev/null; done`;
      return here;
    };

    let cwd = home;
    const run = async (block: string) => {
      const script = block.split('\n').map(asHere).join('\n');
      const state = path.join(root, 'shell-state');
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'bash',
          [
            '-c',
            `set -euo pipefail\n[ -f ${state}.env ] && source ${state}.env\ncd ${JSON.stringify(cwd)}\n${script}\npwd >${state}.cwd\nexport -p | grep -E ' (FOXBELL_[A-Z_]*)=' >${state}.env || true`,
          ],
          {
            env: {
              ...process.env,
              PATH: `${root}/bin:${root}/usr/local/bin:${process.env.PATH}`,
              CI: 'true',
              CURL_CA_BUNDLE: path.join(root, 'xdg-data/caddy/pki/authorities/local/root.crt'),
              FOXBELL_BASE_URL: `http://127.0.0.1:${ports.api}`,
            },
            timeout: 240_000,
            maxBuffer: 64 * 1024 * 1024,
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
      expect({ block: script, code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
        block: script,
        code: 0,
        stderr: '',
      });
      cwd = (await readFile(`${state}.cwd`, 'utf8')).trim();
      return result.stdout;
    };

    const caddyCa = () =>
      readFileSync(path.join(root, 'xdg-data/caddy/pki/authorities/local/root.crt'), 'utf8');
    const blocks = await guideBlocks();
    const outputs: string[] = [];
    for (const block of blocks) {
      // Step 7: the phone shows its code. Here the web app's link request is made as it makes it.
      if (block.includes('K7QM-3XPA')) {
        const link = await httpsJson(`${base}/v1/link-requests`, caddyCa(), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            device_id: 'guide-iphone-0001',
            name: "Ana's iPhone",
            platform: 'ios',
            web_push: subscriptionAt('https://web.push.apple.com/QGuideiPhone'),
          }),
        });
        said['K7QM-3XPA'] = link.body.code as string;
      }
      const output = await run(block);
      outputs.push(output);
      const key = /fox_acct_[A-Za-z0-9]{32}/.exec(output)?.[0];
      if (key) said['fox_acct_…'] = key;
      const token = /fox_send_[A-Za-z0-9]{32}/.exec(output)?.[0];
      if (token) said['fox_send_…'] = token;
    }
    const all = outputs.join('');
    // Node.js 24 from step 1, the server's health through the service and through HTTPS.
    expect(
      spawnSync(path.join(root, 'usr/local/bin/node'), ['--version'], { encoding: 'utf8' }).stdout,
    ).toMatch(/^v24\./);
    expect(all.match(/\{"status":"ok"\}/g)).toHaveLength(2);
    expect(said['fox_acct_…']).toBeDefined();
    expect(said['fox_send_…']).toBeDefined();
    expect(all).toContain('device dev_');
    // The send: accepted, and on its way to the linked iPhone.
    const accepted = /\{"id":"(ntf_[A-Za-z0-9]+)","status":"accepted"/.exec(all)?.[1];
    expect(accepted).toBeDefined();
    await expect
      .poll(
        async () => {
          const now = await httpsJson(`${base}/v1/notifications/${accepted}/status`, caddyCa(), {
            headers: { authorization: `Bearer ${said['fox_send_…']}` },
          });
          return (now.body.destinations as { name: string }[]).map((destination) => destination.name);
        },
        { timeout: 10_000 },
      )
      .toEqual(["Ana's iPhone"]);
    expect(existsSync(path.join(root, 'var/lib/foxbell/foxbell.db'))).toBe(true);
  }, 300_000);
});
