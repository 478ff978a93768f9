/**
 * Answers requests that fail below Fastify (unparseable request line, oversized headers) with
 * the error body instead of Fastify's default shape. Node's `clientError` event (node:http).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

const BODIES: Readonly<Record<string, readonly [number, string, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', 'request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'request timed out'],
};

/** Fastify's `clientErrorHandler` option. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = BODIES[error.code ?? ''] ?? [
    400,
    'BAD_REQUEST',
    'malformed HTTP request',
  ];
  const body = JSON.stringify({ ok: false, error: message, code });
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
        'Content-Type: application/json\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  } else {
    socket.destroy();
  }
}
