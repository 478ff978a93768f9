/**
 * How the web window answers (docs/SECURITY.md §Web window): the security headers on every
 * answer, refusals in words for a person and JSON for the bridge, bounded JSON bodies, and a
 * client that left told apart from a failure of ours.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTENT_SECURITY_POLICY } from '#app/app-protocol.js';
import { OPERATIONS, type OperationName } from '#preload/ipc-contract.js';
import { refusalPage, wantsPage } from './refusal-page.js';
import { WebRefusal } from './web-errors.js';

/** Headers on every answer: the Electron window's CSP, and no framing, sniffing or caching. */
export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
): void {
  res.writeHead(status, { ...WEB_SECURITY_HEADERS, 'content-type': type });
  res.end(body);
}

export function refuse(res: ServerResponse, refusal: WebRefusal, page = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A person who opened the address sees words, a bridge call reads the error body.
  if (page) send(res, refusal.status, 'text/html; charset=utf-8', refusalPage(refusal));
  else send(res, refusal.status, 'application/json; charset=utf-8', JSON.stringify(refusal));
}

/** Reads a JSON body up to maxBytes; refuses more, and anything that is not JSON. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > maxBytes) throw new WebRefusal('BODY_TOO_LARGE', `at most ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new WebRefusal('BODY_TOO_LARGE', `at most ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new WebRefusal('BAD_REQUEST', 'the body is not JSON');
  }
}

/** Errors of a connection the client dropped (a reset, a request aborted mid-body). */
const CLIENT_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * True when `error` is the client leaving: its code says so and the request's connection is
 * indeed gone. The same code from a handler while the client still waits (a socket of its
 * own) is a failure of ours.
 */
export function clientLeft(req: IncomingMessage, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CLIENT_GONE.has(code) && req.socket.destroyed;
}

export function isOperation(name: string): name is OperationName {
  return Object.prototype.hasOwnProperty.call(OPERATIONS, name);
}

/** A request that failed: a refusal in words or JSON, a client that left, or our failure. */
export function answerFailure(
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  log: ((level: 'debug' | 'error', message: string) => void) | undefined,
): void {
  if (error instanceof WebRefusal) {
    // Drain what the client still sends, so the refusal is read rather than reset.
    req.resume();
    refuse(res, error, wantsPage(req));
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (clientLeft(req, error)) {
    // No one is left to answer: not a failure of the app (docs/PROTOCOL.md §7).
    log?.('debug', `web window: the client left mid-request (${message})`);
    res.destroy();
    return;
  }
  log?.('error', `web window: ${message}`);
  refuse(res, new WebRefusal('INTERNAL', 'the app failed to answer; see the log'));
}
