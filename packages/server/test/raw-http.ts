import net from 'node:net';

/** A response as its bytes came: the status line, the headers by lowercase name, and what followed. */
export interface RawResponse {
  statusLine: string;
  headers: Map<string, string>;
  /** Every byte after the head, as received (a HEAD response has none). */
  rest: Buffer;
}

/**
 * Sends `request` as written on a connection of its own and reads the response until the server
 * closes it: the request should ask for `Connection: close`.
 */
export function rawExchange(url: string, request: string): Promise<RawResponse> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const bytes = Buffer.concat(chunks);
      const at = bytes.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = bytes.subarray(0, at).toString('latin1').split('\r\n');
      const headers = new Map(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
        }),
      );
      resolve({ statusLine, headers, rest: bytes.subarray(at + 4) });
    });
    socket.write(request);
  });
}
