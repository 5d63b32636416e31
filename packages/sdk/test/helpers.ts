import { getResponse, HttpResponse, http, type RequestHandler } from 'msw';
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
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
}

export type Reply = () => Response | Promise<Response>;

/**
 * Responds to each request to `method path` with the next reply (the last one repeats) and records
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

/**
 * A client whose fetch responds from the same msw handlers in-process, for tests on a fake clock.
 * msw 3 intercepts below Node's HTTP client, so a real fetch also runs Node's own connection
 * timers, and a fake clock advanced by the test drives those too (a second request then waits
 * out a keep-alive timer of fake seconds). Here only the SDK's own waits and timeouts run on it.
 */
export function fakeClockClient(options: FoxbellOptions = {}): Foxbell {
  return client({ fetch: handlerFetch, ...options });
}

export const handlerFetch: typeof fetch = (input, init) => {
  const request = new Request(input, init);
  const { signal } = request;
  return new Promise<Response>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    getResponse(server.listHandlers() as RequestHandler[], request).then((response) => {
      signal.removeEventListener('abort', onAbort);
      if (!response) reject(new Error(`No handler for ${request.method} ${request.url}`));
      // HttpResponse.error() stands for a network failure, which fetch reports as a TypeError.
      else if (response.type === 'error') reject(new TypeError('fetch failed'));
      else resolve(response);
    }, reject);
  });
};
