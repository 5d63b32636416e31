import type { FastifyRequest } from 'fastify';

/** Names a browser on this machine uses for it; anything else in `Host` is another site's name. */
const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a peer address is this machine: all of 127.0.0.0/8 and ::1, in IPv4 or IPv4-mapped form. */
function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * Whether `Host` names this machine at the port the request came in on. A page of another web site
 * whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own name here: the browser lets it
 * read the answers, as same-origin, only if the server answers that name.
 */
export function isLocalHost(host: string | undefined, port: number | undefined): boolean {
  if (host === undefined || port === undefined) return false;
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(host.toLowerCase());
  if (!match || !LOCAL_NAMES.has(match[1] as string)) return false;
  return Number(match[2] ?? '80') === port;
}

/**
 * What may see a page or API that holds a secret of this machine's developer (the device page, the
 * simulator's control API): a peer on this machine that names this machine.
 */
export function isLocalRequest(request: FastifyRequest): boolean {
  return (
    isLoopbackAddress(request.socket.remoteAddress) &&
    isLocalHost(request.headers.host, request.socket.localPort)
  );
}
