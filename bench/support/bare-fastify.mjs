// The baseline of send-throughput: bare Fastify answering the same request with a 202, with
// Fastify's own JSON parsing and nothing else. Prints the same `listening on` line as the server.
import Fastify from 'fastify';

const app = Fastify();
let counter = 0;
app.post('/v1/notifications', async (_request, reply) => {
  counter += 1;
  return reply.code(202).send({ id: `ntf_${counter}`, status: 'accepted', request_id: `req_${counter}` });
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`bare fastify listening on ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
