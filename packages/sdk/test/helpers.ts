import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { Foxbell, type FoxbellOptions } from '../src/index.js';

export const BASE_URL = 'https://foxbell.test';
export const TOKEN = `fox_send_${'Ab3'.repeat(10)}xy`;

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Date.now() when it arrived (fake time in retry tests). */
  at: number;
}

export const server = setupServer();

/** Starts msw for the file; any request without a handler fails the test. */
export function useMockService(): void {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
}

export type Reply = () => Response | Promise<Response>;

/**
 * Answers each request to `method path` with the next reply (the last one repeats) and records
 * every request with its raw body bytes.
 */
export function serve(method: 'get' | 'post', path: string, ...replies: Reply[]): Recorded[] {
  const recorded: Recorded[] = [];
  server.use(
    http[method](`${BASE_URL}${path}`, async ({ request }) => {
      recorded.push({
        method: request.method,
        url: request.url,
        headers: Object.fromEntries(request.headers),
        body: new Uint8Array(await request.arrayBuffer()),
        at: Date.now(),
      });
      const reply = replies[Math.min(recorded.length, replies.length) - 1];
      if (!reply) throw new Error('serve() needs at least one reply');
      return reply();
    }),
  );
  return recorded;
}

export const accepted: Reply = () =>
  HttpResponse.json(
    { id: 'ntf_abc123', status: 'accepted', request_id: 'req_ok1' },
    {
      status: 202,
      headers: {
        'x-request-id': 'req_ok1',
        'x-ratelimit-limit': '10000',
        'x-ratelimit-remaining': '9999',
        'x-ratelimit-reset': '1798761600',
      },
    },
  );

export function errorReply(status: number, code: string, headers: Record<string, string> = {}): Reply {
  return () =>
    HttpResponse.json(
      { error: { code, message: `${code} happened` }, request_id: `req_${code}` },
      { status, headers: { 'x-request-id': `req_${code}`, ...headers } },
    );
}

export function client(options: FoxbellOptions = {}): Foxbell {
  return new Foxbell({ token: TOKEN, baseUrl: BASE_URL, random: () => 0, ...options });
}
