import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers.js';

/** The head of an answer to raw bytes: its status line and headers, and whether a body followed. */
function headOf(url: string, request: string): Promise<{ lines: string[]; rest: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const at = text.indexOf('\r\n\r\n');
      resolve({ lines: text.slice(0, at).split('\r\n'), rest: text.slice(at + 4) });
    });
    socket.write(request);
  });
}

describe("the server's own address", () => {
  it('leads to the web app: GET / is a 302 to /app/, and /app a 301 to /app/', async () => {
    const server = await startServer();
    for (const method of ['GET', 'HEAD']) {
      const { lines, rest } = await headOf(
        server.url,
        `${method} / HTTP/1.1\r\nHost: push.example.com\r\nConnection: close\r\n\r\n`,
      );
      expect(lines[0], method).toBe('HTTP/1.1 302 Found');
      expect(lines, method).toContain('location: /app/');
      expect(lines, method).toContain('content-length: 0');
      expect(
        lines.find((line) => line.startsWith('x-request-id: ')),
        method,
      ).toMatch(/^x-request-id: req_\w+$/);
      expect(rest, method).toBe('');
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
