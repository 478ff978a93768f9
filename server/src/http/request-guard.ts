/**
 * What every request meets before any route (docs/SECURITY.md §9, docs/SERVER.md §Limits):
 * `X-Content-Type-Options: nosniff` on every answer, a request with two Host headers refused
 * (node keeps the first and drops the rest, so a proxy and this server could disagree on the
 * target), and CONNECT answered with 405 instead of a silently dropped socket (node hands
 * CONNECT to a 'connect' listener and destroys the socket when there is none).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from '#protocol';

export const NOSNIFF = ['X-Content-Type-Options', 'nosniff'] as const;

/** Counts Host headers in the raw header list (names at even indexes). */
export function hostHeaderCount(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'host') n += 1;
  }
  return n;
}

/** Sets nosniff and answers a request with more than one Host; true when it answered. */
export function guardRequest(request: IncomingMessage, response: ServerResponse): boolean {
  response.setHeader(NOSNIFF[0], NOSNIFF[1]);
  if (hostHeaderCount(request.rawHeaders) <= 1) return false;
  const body = JSON.stringify(errorBody('DUPLICATE_HOST', 'the request has more than one Host'));
  response.writeHead(400, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
  return true;
}

/** Answers CONNECT with 405 and closes the socket (no route tunnels). */
export function refuseConnect(server: Server): void {
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify(
      errorBody('METHOD_NOT_ALLOWED', 'CONNECT is not allowed on this server'),
    );
    socket.end(
      'HTTP/1.1 405 Method Not Allowed\r\n' +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        'Allow: DELETE, GET, HEAD, OPTIONS, POST\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
