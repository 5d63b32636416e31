// The baseline of send-throughput and status-read: bare Fastify serving the same requests with
// Fastify's own JSON parsing and serialization and nothing else (a 202 to a send, a status record
// of three pushed destinations from memory to a status read). Prints the same `listening on` line
// as the server.
import Fastify from 'fastify';

const app = Fastify();
let counter = 0;
app.post('/v1/notifications', async (_request, reply) => {
  counter += 1;
  return reply.code(202).send({ id: `ntf_${counter}`, status: 'accepted', request_id: `req_${counter}` });
});
app.get('/v1/notifications/:id/status', async (request) => {
  const at = new Date().toISOString();
  const destination = (name, platform) => ({
    name,
    platform,
    state: 'accepted',
    push_status: 200,
    updated_at: at,
  });
  return {
    id: request.params.id,
    status: 'sent_to_push',
    destinations: [
      destination('iPhone', 'ios'),
      destination('Apple Watch', 'watchos'),
      destination('Vision Pro', 'visionos'),
    ],
    handled: [],
  };
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`bare fastify listening on ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
