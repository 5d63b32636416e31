/** Names a browser on this machine uses for it; anything else in `Host` is another site's name. */
const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a peer address is this machine: all of 127.0.0.0/8 and ::1, in IPv4 or IPv4-mapped form. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * Whether `Host` names this machine at the port the request came in on. A page of another web site
 * whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own name here: the browser lets it
 * read the responses, as same-origin, only if the server responds that name.
 */
export function isLocalHost(host: string | undefined, port: number | undefined): boolean {
  if (host === undefined || port === undefined) return false;
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(host.toLowerCase());
  if (!match || !LOCAL_NAMES.has(match[1] as string)) return false;
  return Number(match[2] ?? '80') === port;
}

/**
 * The host a request names: the authority of an absolute-form target (`GET http://host/path`),
 * which a server must take over `Host` (RFC 9112, 3.2.2), else `Host`. Undefined for an absolute
 * target that does not parse.
 */
export function requestedHost(target: string | undefined, host: string | undefined): string | undefined {
  if (target === undefined || !/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return host;
  try {
    return new URL(target).host;
  } catch {
    return undefined;
  }
}

/**
 * What the check reads of a request: its connection's two ends, its target and its `Host`. A
 * Fastify request is one; the kernel names no framework.
 */
export interface PeerRequest {
  socket: { remoteAddress?: string | undefined; localPort?: number | undefined };
  raw: { url?: string | undefined };
  headers: { host?: string | undefined };
}

/**
 * What may see a page or API that holds a secret of this machine's developer (the device page, the
 * simulator's control API): a peer on this machine that names this machine.
 */
export function isLocalRequest(request: PeerRequest): boolean {
  return (
    isLoopbackAddress(request.socket.remoteAddress) &&
    isLocalHost(requestedHost(request.raw.url, request.headers.host), request.socket.localPort)
  );
}
