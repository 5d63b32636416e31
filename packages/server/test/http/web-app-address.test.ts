import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers.js';
import { rawExchange } from '../raw-http.js';

describe("the server's own address", () => {
  it('leads to the web app: GET / is a 302 to /app/, and /app a 301 to /app/', async () => {
    const server = await startServer();
    for (const method of ['GET', 'HEAD']) {
      const answer = await rawExchange(
        server.url,
        `${method} / HTTP/1.1\r\nHost: push.example.com\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.statusLine, method).toBe('HTTP/1.1 302 Found');
      expect(answer.headers.get('location'), method).toBe('/app/');
      expect(answer.headers.get('content-length'), method).toBe('0');
      expect(answer.headers.get('x-request-id'), method).toMatch(/^req_\w+$/);
      expect(answer.rest.length, method).toBe(0);
    }
    // Followed as a browser follows it: the app's page.
    const followed = await fetch(`${server.url}/`);
    expect([followed.status, followed.url, followed.headers.get('content-type')]).toEqual([
      200,
      `${server.url}/app/`,
      'text/html; charset=utf-8',
    ]);
    const bare = await fetch(`${server.url}/app`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([301, '/app/']);
  });
});
