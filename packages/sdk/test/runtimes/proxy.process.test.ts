import { fileURLToPath } from 'node:url';
import { EXTRA_NODES, runScript, startServerWithToken, startTinyproxy } from '@foxbell/test-support';
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { Foxbell } from '../../src/index.js';

/**
 * The SDK behind a forward proxy, the two ways docs/sdk.md gives: Node's own NODE_USE_ENV_PROXY,
 * and undici's EnvHttpProxyAgent through the `fetch` option. A real tinyproxy carries the requests
 * and its log shows them.
 */
const SEND_SCRIPT = fileURLToPath(new URL('./sdk-send.mjs', import.meta.url));

afterEach(() => vi.unstubAllEnvs());

// Each test starts a server and a tinyproxy and may spawn another Node: more than the default 5 s
// on a loaded machine, where the suite runs two files at once.
describe('the SDK behind a forward proxy', { timeout: 30_000 }, () => {
  it.each([['this run', process.execPath], ...EXTRA_NODES.map((node) => [node, node])])(
    'goes through HTTP_PROXY with NODE_USE_ENV_PROXY=1 (Node at %s)',
    async (_name, node) => {
      const { server, token } = await startServerWithToken();
      const proxy = await startTinyproxy();
      // By name: Node 22 and 24 send to a loopback address directly, whatever HTTP_PROXY says.
      const host = `localhost:${new URL(server.url).port}`;
      const run = await runScript(
        SEND_SCRIPT,
        ['via the proxy'],
        {
          NODE_USE_ENV_PROXY: '1',
          HTTP_PROXY: proxy.url,
          NOTIFY_TOKEN: token,
          NOTIFY_BASE_URL: `http://${host}`,
        },
        undefined,
        node,
      );
      expect(run.stdout, run.stderr).toMatch(/^ntf_\w+\n$/);
      expect(run.code).toBe(0);
      // Node 26 forwards a plain-HTTP request by its absolute URL; 22 and 24 tunnel it with CONNECT.
      expect(await proxy.log()).toMatch(
        new RegExp(
          `Request \\(file descriptor \\d+\\): (POST http://${host}/v1/notifications|CONNECT ${host}) HTTP/1\\.1`,
        ),
      );
      expect(await proxy.log()).not.toContain(token);
    },
  );

  it("goes through undici's EnvHttpProxyAgent given as the fetch option, and NO_PROXY bypasses it", async () => {
    const { server, token } = await startServerWithToken();
    const proxy = await startTinyproxy();
    vi.stubEnv('HTTP_PROXY', proxy.url);
    vi.stubEnv('NO_PROXY', '');
    const viaProxy = (dispatcher: EnvHttpProxyAgent) =>
      new Foxbell({
        token,
        baseUrl: server.url,
        fetch: ((input, init) =>
          undiciFetch(input as string, { ...init, dispatcher } as never)) as typeof fetch,
      });
    const agent = new EnvHttpProxyAgent();
    const sent = await viaProxy(agent).send({ message: 'via undici' });
    const host = new URL(server.url).host;
    // undici tunnels plain HTTP with CONNECT; a proxy may forward it by its URL instead.
    const through = new RegExp(
      `Request \\(file descriptor \\d+\\): (POST http://${host}/v1/notifications|CONNECT ${host}) HTTP/1\\.1`,
    );
    expect(await proxy.log()).toMatch(through);
    expect((await viaProxy(agent).status(sent.id as string)).id).toBe(sent.id);
    await agent.close();

    vi.stubEnv('NO_PROXY', '127.0.0.1');
    const bypassing = new EnvHttpProxyAgent();
    const before = (await proxy.log()).length;
    const direct = await viaProxy(bypassing).send({ message: 'not via the proxy' });
    expect(direct.status).toBe('accepted');
    expect((await proxy.log()).slice(before)).not.toContain(host);
    await bypassing.close();
  });
});
