import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SERVER_SETTINGS } from '../../src/config/server-settings.js';

const ROOT = new URL('../../../../', import.meta.url);
const read = async (file: string) => readFile(new URL(file, ROOT), 'utf8');

/** Every variable foxbell-server reads: each setting's, and `…_FILE` for a secret's. */
const VARIABLES = new Set(
  Object.values(SERVER_SETTINGS).flatMap((setting) => {
    const variable = 'variable' in setting ? setting.variable : undefined;
    if (variable === undefined) return [];
    return 'secret' in setting && setting.secret ? [variable, `${variable}_FILE`] : [variable];
  }),
);

describe('compose.yaml', () => {
  it("holds together with the Dockerfile, deploy/Caddyfile and foxbell-server's settings", async () => {
    const compose = parse(await read('compose.yaml'));
    const dockerfile = await read('Dockerfile');
    const { foxbell, caddy } = compose.services;
    expect(foxbell.build).toBe('.');
    // Only variables the server reads: a misspelt one would be ignored without a word.
    for (const name of Object.keys(foxbell.environment)) expect(VARIABLES, name).toContain(name);
    for (const line of dockerfile.matchAll(/^\s+(FOXBELL_\w+)=/gm)) expect(VARIABLES).toContain(line[1]);
    // The data volume is where the image keeps its data.
    expect(dockerfile).toMatch(/^VOLUME \/data$/m);
    expect(dockerfile).toContain('FOXBELL_DATA=/data');
    expect(foxbell.volumes).toEqual(['foxbell-data:/data']);
    // The admin key is a secret file, where FOXBELL_ADMIN_KEY_FILE looks.
    expect(foxbell.secrets).toEqual(['admin-key']);
    expect(foxbell.environment.FOXBELL_ADMIN_KEY_FILE).toBe('/run/secrets/admin-key');
    // X-Forwarded-For is trusted from Caddy's network alone.
    expect(foxbell.environment.FOXBELL_TRUST_PROXY).toBe(compose.networks.foxbell.ipam.config[0].subnet);
    expect(caddy.networks).toEqual(foxbell.networks);
    // The server's own address is the name Caddy serves: the web app's pushes open its pages there.
    expect(foxbell.environment.FOXBELL_PUBLIC_URL).toBe(`https://${caddy.environment.FOXBELL_DOMAIN}`);
    // Caddy waits for the image's HEALTHCHECK, and reads the shipped Caddyfile.
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(caddy.depends_on).toEqual({ foxbell: { condition: 'service_healthy' } });
    const [caddyfile] = caddy.volumes;
    expect(caddyfile).toBe('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(existsSync(fileURLToPath(new URL('deploy/Caddyfile', ROOT)))).toBe(true);
    expect(await read('deploy/Caddyfile')).toContain('reverse_proxy {$FOXBELL_UPSTREAM:foxbell:8787}');
    expect(dockerfile).toContain('FOXBELL_PORT=8787');
  });
});
