import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isLocalHost, isLocalRequest } from '../kernel/local-only.js';
import type { ApnsSimulator } from './simulator.js';

const pushTokenParams = z.object({ pushToken: z.string().regex(/^[0-9a-fA-F]{64}$/) });
const scriptedResponseSchema = z.strictObject({
  status: z.int().min(200).max(599).optional(),
  reason: z.string().max(64).optional(),
  delay_ms: z.int().min(0).max(60_000).optional(),
  timestamp: z.int().min(0).optional(),
  reset: z.boolean().optional(),
  goaway: z.boolean().optional(),
});
const bodies = {
  script: z.strictObject({ answers: z.array(scriptedResponseSchema).min(1).max(100) }),
  token: z.strictObject({ topic: z.string().min(1).max(255) }),
  unregister: z.strictObject({ timestamp: z.int().min(0).optional() }),
  key: z.strictObject({
    key_id: z.string().min(1).max(64),
    team_id: z.string().min(1).max(64),
    key: z.string().max(8192),
  }),
};

/**
 * The simulator's control API: plain HTTP/1.1 and JSON on its own port, for tests, scripts and
 * the device page. Every route is the HTTP face of one `ApnsSimulator` method; see
 * `docs/apns-simulator.md`.
 */
export function buildSimulatorControl(simulator: ApnsSimulator): FastifyInstance {
  const app = Fastify({ bodyLimit: 16_384 });
  // JSON only: a text/plain or form POST is what another web site's page may send without asking.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new ControlError(400, 'the body is not valid JSON'));
    }
  });
  // It can read every push and unregister devices: only this machine, by a name of this machine
  // (no DNS rebinding), and never a request a browser sends on another site's behalf.
  app.addHook('onRequest', (request, _reply, done) => {
    const { origin } = request.headers;
    const local =
      isLocalRequest(request) && (origin === undefined || isLocalOrigin(origin, request.socket.localPort));
    if (!local) return done(new ControlError(403, 'the control API answers this machine only'));
    const type = request.headers['content-type'];
    if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) {
      return done(new ControlError(415, 'the control API takes application/json only'));
    }
    done();
  });
  app.setErrorHandler((error, _request, reply) => {
    // Only our own words: a parser's or OpenSSL's message says nothing a caller needs.
    const known = error instanceof ControlError ? error : undefined;
    const status = known?.statusCode ?? 400;
    void reply.code(status).send({
      error: {
        code: status === 403 ? 'forbidden' : status === 415 ? 'unsupported_media_type' : 'invalid_request',
        message: known?.message ?? 'the request could not be read',
      },
    });
  });
  const parse = <T>(schema: z.ZodType<T>, value: unknown): T => {
    const result = schema.safeParse(value ?? {});
    if (!result.success) throw new ControlError(400, z.prettifyError(result.error));
    return result.data;
  };

  app.get('/v1/health', async () => ({ ok: true, url: simulator.url }));
  app.get('/v1/pushes', async (request) => {
    const { push_token } = parse(z.object({ push_token: z.string().optional() }), request.query);
    return { pushes: simulator.received(push_token), counts: simulator.counts() };
  });
  app.delete('/v1/pushes', async (_request, reply) => {
    simulator.reset();
    return reply.code(204).send();
  });
  app.post('/v1/tokens/:pushToken/script', async (request, reply) => {
    const { pushToken } = parse(pushTokenParams, request.params);
    simulator.script(pushToken, parse(bodies.script, request.body).answers);
    return reply.code(204).send();
  });
  app.put('/v1/tokens/:pushToken', async (request, reply) => {
    const { pushToken } = parse(pushTokenParams, request.params);
    simulator.registerToken(pushToken, parse(bodies.token, request.body).topic);
    return reply.code(204).send();
  });
  app.post('/v1/tokens/:pushToken/unregister', async (request, reply) => {
    const { pushToken } = parse(pushTokenParams, request.params);
    simulator.unregisterToken(pushToken, parse(bodies.unregister, request.body).timestamp);
    return reply.code(204).send();
  });
  app.post('/v1/keys', async (request, reply) => {
    const key = parse(bodies.key, request.body);
    try {
      simulator.registerKey({ keyId: key.key_id, teamId: key.team_id, keyPem: key.key });
    } catch {
      throw new ControlError(400, 'key must be an EC key in PEM (a .p8 file or its public half)');
    }
    return reply.code(204).send();
  });
  app.post('/v1/goaway', async (_request, reply) => {
    simulator.goaway();
    return reply.code(204).send();
  });
  return app;
}

class ControlError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

function isLocalOrigin(origin: string, port: number | undefined): boolean {
  try {
    return isLocalHost(new URL(origin).host, port);
  } catch {
    return false;
  }
}
