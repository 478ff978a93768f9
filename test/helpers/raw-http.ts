/**
 * One HTTP request to a loopback port with full control of Host, Origin and Cookie (fetch
 * sets Host itself): the web window's tests use it to send what a browser never would.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** The client's own address (another 127.x on loopback: another client address). */
  readonly localAddress?: string;
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The error body's `code`, when the body is one. */
  readonly code: unknown;
}

function codeOf(body: string): unknown {
  try {
    return (JSON.parse(body) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}

/** Sends the request (Host defaults to 127.0.0.1:PORT) and reads the whole answer. */
export function rawRequest(port: number, options: RawRequest = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, code: codeOf(body) }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Opens `GET path` and hands back the live response once its head arrives (for event
 * streams); `close()` drops the connection.
 */
export function openRawStream(
  port: number,
  path: string,
  headers: Record<string, string>,
  onData: (text: string) => void = () => undefined,
): Promise<{ status: number; headers: IncomingHttpHeaders; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', onData);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
