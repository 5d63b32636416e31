// A Cloudflare Worker that runs the SDK checks when fetched: bundled with the SDK as a worker's
// build would, then run by workerd. The server's address and token come as bindings.
import { checkSdk } from './sdk-checks.mjs';

export default {
  async fetch(_request, env) {
    return Response.json(await checkSdk(env.BASE_URL, env.TOKEN, 'workerd'));
  },
};
