import type { Socket } from 'node:net';
import type { TLSSocket, Server as TlsServer } from 'node:tls';

/**
 * Connections to the HTTPS port whose TLS handshake has not completed. Node's HTTP timeouts and
 * `closeIdleConnections` start only once a handshake is done, so until then a connection is the
 * TLS server's alone: `handshakeTimeout` (set from the headers timeout in app.ts) bounds it while
 * the process runs, and a stop closes these at once instead of waiting that long for them.
 */
export function trackHandshakes(server: TlsServer): { destroyPending(): void } {
  // By the peer's address and port: the TLS socket Node makes is not the TCP socket it wraps,
  // and these two public fields are what they share.
  const pending = new Map<string, Socket>();
  const keyOf = (socket: Socket | TLSSocket) => `${socket.remoteAddress}|${socket.remotePort}`;
  server.on('connection', (socket: Socket) => {
    const key = keyOf(socket);
    pending.set(key, socket);
    socket.once('close', () => {
      if (pending.get(key) === socket) pending.delete(key);
    });
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    pending.delete(keyOf(socket));
  });
  return {
    destroyPending: () => {
      for (const socket of pending.values()) socket.destroy();
      pending.clear();
    },
  };
}
