import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ApnsSimulator } from './simulator.js';

const pushTokenParams = z.object({ pushToken: z.string().regex(/^[0-9a-fA-F]{64}$/) });
const answerSchema = z.strictObject({
  status: z.int().min(200).max(599).optional(),
  reason: z.string().max(64).optional(),
  delay_ms: z.int().min(0).max(60_000).optional(),
  timestamp: z.int().min(0).optional(),
  reset: z.boolean().optional(),
  goaway: z.boolean().optional(),
});
const bodies = {
  script: z.strictObject({ answers: z.array(answerSchema).min(1).max(100) }),
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
  app.setErrorHandler((error, _request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 400;
    void reply
      .code(status < 500 ? status : 400)
      .send({ error: { code: 'invalid_request', message: (error as Error).message } });
  });
  const parse = <T>(schema: z.ZodType<T>, value: unknown): T => {
    const result = schema.safeParse(value ?? {});
    if (!result.success) throw Object.assign(new Error(z.prettifyError(result.error)), { statusCode: 400 });
    return result.data;
  };

  app.get('/v1/health', async () => ({ ok: true, url: simulator.url }));
  app.get('/v1/pushes', async (request) => {
    const { push_token } = parse(z.object({ push_token: z.string().optional() }), request.query);
    return { pushes: simulator.received(push_token) };
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
    simulator.registerKey({ keyId: key.key_id, teamId: key.team_id, keyPem: key.key });
    return reply.code(204).send();
  });
  app.post('/v1/goaway', async (_request, reply) => {
    simulator.goaway();
    return reply.code(204).send();
  });
  return app;
}
