import { describe, expect, it } from 'vitest';
import { createAccount, expectError, serverForAll, type TestServer } from '../helpers.js';

// Every test sends with an account of its own, and none moves the clock.
const shared = serverForAll();

async function setup() {
  const server = shared();
  const account = await createAccount(server);
  const path = (query = '') => `/v1/send/${account.token}${query}`;
  return { server, account, path };
}

async function sent(server: TestServer, reply: { status: number; text: string; body: { id: string } }) {
  expect(reply.status, reply.text).toBe(202);
  return (await server.store.getNotification(reply.body.id))?.notification;
}

describe('GET and POST /v1/send/<TOKEN>', () => {
  it('sends from a query string on GET, with the rate-limit headers', async () => {
    const { server, path } = await setup();
    const reply = await server.request('GET', path('?message=Build%20passed&title=CI&level=1&ttl=60'));
    expect(await sent(server, reply)).toMatchObject({
      message: 'Build passed',
      title: 'CI',
      level: 'time-sensitive',
      ttl: 60,
    });
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('9999');
    expect(reply.body.request_id).toBe(reply.headers.get('x-request-id'));
  });

  it('sends nothing for a bare token URL: GET without a message is 400 missing_field', async () => {
    const { server, path } = await setup();
    expectError(await server.request('GET', path()), 400, 'missing_field', 'message');
  });

  it('sends on every fetch of a URL that holds a message', async () => {
    const { server, path } = await setup();
    const first = await server.request('GET', path('?message=hi'));
    const second = await server.request('GET', path('?message=hi'));
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(first.body.id).not.toBe(second.body.id);
  });

  it('decodes percent-encoding and + in query values', async () => {
    const { server, path } = await setup();
    const reply = await server.request('GET', path('?message=a+b%20%26%3D%23%2B%25%E2%9C%93'));
    expect((await sent(server, reply))?.message).toBe('a b &=#+%✓');
  });

  it('rejects broken percent-encoding', async () => {
    const { server, path } = await setup();
    const reply = await server.request('GET', path('?message=%E2%9C'));
    expectError(reply, 400, 'invalid_field', 'message');
    expect(reply.body.error.message).toBe(
      'the query is not valid percent-encoded UTF-8: its escapes decode to bytes that are not UTF-8; let curl encode it (curl -G --data-urlencode "message=…")',
    );
  });

  it('says how to write a bare % (curl -d "message=Disk 91% full")', async () => {
    const { server, path } = await setup();
    const form = await server.request('POST', path(), {
      body: 'message=Disk 91% full',
      contentType: 'application/x-www-form-urlencoded',
    });
    expectError(form, 400, 'invalid_field', 'message');
    expect(form.body.error.message).toBe(
      'the form is not valid percent-encoded UTF-8: a % that does not start an escape (write it as %25); send the text as text/plain, or let curl encode it (--data-urlencode "message=…")',
    );
    const query = await server.request('GET', path('?message=91%'));
    expect(query.body.error.message).toBe(
      'the query is not valid percent-encoded UTF-8: a % that does not start an escape (write it as %25); let curl encode it (curl -G --data-urlencode "message=…")',
    );
  });

  it('says how to send text when a form body names no send field (curl -d "x = 1 + 1")', async () => {
    const { server, path } = await setup();
    const reply = await server.request('POST', path(), {
      body: 'x = 1 + 1',
      contentType: 'application/x-www-form-urlencoded',
    });
    expectError(reply, 400, 'invalid_field', 'x ');
    expect(reply.body.error.message).toBe(
      '"x " is not a send field: a form body is read as name=value pairs; send the text as text/plain, or as message=… (curl --data-urlencode "message=…")',
    );
    // The same name in a query gets the contract's message alone: a query has no text to send.
    const query = await server.request('GET', path('?message=hi&x+=1'));
    expectError(query, 400, 'invalid_field', 'x ');
    expect(query.body.error.message).toBe('"x " is not a send field');
  });

  it('takes a plain-text body as the message, exactly', async () => {
    const { server, path } = await setup();
    const text = 'line one\nline two with = and & and %20\ttab';
    const reply = await server.request('POST', path(), { body: text, contentType: 'text/plain' });
    expect((await sent(server, reply))?.message).toBe(text);
  });

  it('takes a form body without = as the message exactly as sent, not decoded', async () => {
    const { server, path } = await setup();
    const reply = await server.request('POST', path(), {
      body: 'Deploy+done%21 ok',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect((await sent(server, reply))?.message).toBe('Deploy+done%21 ok');
  });

  it('parses a form body with = as fields', async () => {
    const { server, path } = await setup();
    const reply = await server.request('POST', path(), {
      body: 'message=Deploy+done%21&scene=rocket&param.color=red&param.countdown=5&version=3',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(await sent(server, reply)).toMatchObject({
      message: 'Deploy done!',
      scene: 'rocket',
      scene_params: { color: 'red', countdown: 5 },
    });
  });

  it('takes a JSON body', async () => {
    const { server, path } = await setup();
    const reply = await server.request('POST', path(), { json: { message: 'hi', scene: 'fireworks' } });
    expect(await sent(server, reply)).toMatchObject({ message: 'hi', scene: 'fireworks' });
  });

  it('merges sources before requiring a message: query message plus JSON title', async () => {
    const { server, path } = await setup();
    const reply = await server.request('POST', path('?message=hi'), { json: { title: 'T' } });
    expect(await sent(server, reply)).toMatchObject({ message: 'hi', title: 'T' });
  });

  it('reads X-Title and X-Level, with UTF-8 header bytes', async () => {
    const { server, path } = await setup();
    const reply = await server.request('POST', path('?message=hi'), {
      headers: { 'x-title': Buffer.from('Café ✓').toString('latin1'), 'x-level': 'passive' },
    });
    expect(await sent(server, reply)).toMatchObject({ title: 'Café ✓', level: 'passive' });
  });

  it('accepts a POST with no body and no content type (message in the query)', async () => {
    const { server, path } = await setup();
    expect((await server.request('POST', path('?message=hi'))).status).toBe(202);
  });

  it('converts param.<name> to the scene schema types', async () => {
    const { server, path } = await setup();
    const reply = await server.request('GET', path('?message=hi&scene=fireworks&param.bursts=7'));
    expect((await sent(server, reply))?.scene_params).toEqual({ bursts: 7 });
    expectError(
      await server.request('GET', path('?message=hi&scene=fireworks&param.bursts=seven')),
      400,
      'invalid_scene_param',
      'scene_params.bursts',
    );
    expectError(
      await server.request('GET', path('?message=hi&scene=rocket&param.speed=3')),
      400,
      'invalid_scene_param',
      'scene_params.speed',
    );
  });

  it('rejects param[name]', async () => {
    const { server, path } = await setup();
    expectError(
      await server.request('GET', path('?message=hi&scene=rocket&param%5Bcolor%5D=red')),
      400,
      'invalid_field',
      'param[color]',
    );
  });

  it('treats version, type and attachments in the query as unknown fields', async () => {
    const { server, path } = await setup();
    for (const name of ['version', 'type', 'attachments']) {
      expectError(await server.request('GET', path(`?message=hi&${name}=1`)), 400, 'invalid_field', name);
    }
  });

  it('rejects an unknown query field', async () => {
    const { server, path } = await setup();
    expectError(await server.request('GET', path('?message=hi&colour=red')), 400, 'invalid_field', 'colour');
  });

  describe('conflicts', () => {
    it('rejects a repeated query parameter with different values and takes the same value twice', async () => {
      const { server, path } = await setup();
      expectError(
        await server.request('GET', path('?message=a&message=b')),
        400,
        'conflicting_field',
        'message',
      );
      expect((await server.request('GET', path('?message=a&message=a'))).status).toBe(202);
    });

    it('rejects one field with different values in two sources', async () => {
      const { server, path } = await setup();
      expectError(
        await server.request('POST', path('?title=a'), { json: { message: 'hi', title: 'b' } }),
        400,
        'conflicting_field',
        'title',
      );
      expectError(
        await server.request('POST', path('?message=hi'), {
          headers: { 'x-title': 'a' },
          json: { title: 'b' },
        }),
        400,
        'conflicting_field',
        'title',
      );
      expectError(
        await server.request('POST', path('?message=a'), { body: 'b', contentType: 'text/plain' }),
        400,
        'conflicting_field',
        'message',
      );
    });

    it('rejects two aliases of message with different values across sources', async () => {
      const { server, path } = await setup();
      expectError(
        await server.request('POST', path('?text=a'), { json: { body: 'b' } }),
        400,
        'conflicting_field',
        'message',
      );
    });

    it('compares after decoding: ttl=60 in the query equals "ttl": 60 in JSON', async () => {
      const { server, path } = await setup();
      const reply = await server.request('POST', path('?ttl=60&level=1'), {
        json: { message: 'hi', ttl: 60, level: 1 },
      });
      expect((await sent(server, reply))?.ttl).toBe(60);
    });

    it('rejects one scene parameter with different values in two sources', async () => {
      const { server, path } = await setup();
      expectError(
        await server.request('POST', path('?param.color=red'), {
          json: { message: 'hi', scene: 'rocket', scene_params: { color: 'blue' } },
        }),
        400,
        'conflicting_field',
        'scene_params.color',
      );
      const same = await server.request('POST', path('?param.countdown=4'), {
        json: { message: 'hi', scene: 'rocket', scene_params: { countdown: 4 } },
      });
      expect((await sent(server, same))?.scene_params).toEqual({ countdown: 4 });
    });
  });

  it('gives an empty message invalid_field, and an empty text body missing_field', async () => {
    const { server, path } = await setup();
    expectError(await server.request('GET', path('?message=')), 400, 'invalid_field', 'message');
    expectError(
      await server.request('POST', path(), { body: '', contentType: 'text/plain' }),
      400,
      'missing_field',
      'message',
    );
  });

  it('rejects other content types with 415', async () => {
    const { server, path } = await setup();
    const reply = await server.request('POST', path('?message=hi'), {
      body: '<a/>',
      contentType: 'application/xml',
    });
    expectError(reply, 415, 'unsupported_media_type');
  });

  it('does not send on HEAD (link previewers probe with it)', async () => {
    const { server, account, path } = await setup();
    const reply = await server.request('HEAD', path('?message=hi'));
    expect(reply.status).toBe(404);
    const inbox = await server.store.inbox(account.id, { after: undefined, limit: 5, since: 0 });
    expect(inbox.items).toEqual([]);
  });

  it('responds with 401 for an unknown or malformed path token and 403 for an account key', async () => {
    const server = shared();
    const account = await createAccount(server);
    expectError(
      await server.request('GET', `/v1/send/fox_send_${'a'.repeat(32)}?message=hi`),
      401,
      'unauthorized',
    );
    expectError(await server.request('GET', '/v1/send/not_a_token?message=hi'), 401, 'unauthorized');
    expectError(await server.request('GET', `/v1/send/${account.key}?message=hi`), 403, 'forbidden');
  });
});
