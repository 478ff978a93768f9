/**
 * A throttled link on loopback: a reverse proxy in front of one registry that paces every
 * response body to `bytesPerSecond` (a slow network, as a user meets it) and can be cut and
 * restored (the registry "killed and restored mid-download": open exchanges are torn down and
 * new connections refused until `restore()`). The client is given the proxy's URL as its
 * registry address, so every request of the run goes through it.
 */
import {
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';

export interface ThrottleProxy {
  /** http://127.0.0.1:PORT, no trailing slash. */
  readonly url: string;
  /** Response body bytes sent to clients so far. */
  readonly sentBytes: () => number;
  /** Tears down every open exchange and refuses connections until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** Holds each chunk back for as long as it takes to send at `bytesPerSecond`. */
function pacer(bytesPerSecond: number, count: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      const waitMs = (chunk.length * 1000) / bytesPerSecond;
      setTimeout(() => {
        count(chunk.length);
        done(null, chunk);
      }, waitMs);
    },
  });
}

export async function startThrottleProxy(options: {
  /** The registry, e.g. http://127.0.0.1:PORT. */
  readonly target: string;
  readonly bytesPerSecond: number;
}): Promise<ThrottleProxy> {
  const target = new URL(options.target);
  let down = false;
  let sent = 0;
  const sockets = new Set<Socket>();
  const upstreams = new Set<ClientRequest>();

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const upstream = httpRequest({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host },
    });
    upstreams.add(upstream);
    upstream.on('close', () => upstreams.delete(upstream));
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(pacer(options.bytesPerSecond, (n) => (sent += n))).pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };

  const server = createServer(forward);
  server.on('connection', (socket) => {
    if (down) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const tearDown = (): void => {
    for (const upstream of upstreams) upstream.destroy();
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    sentBytes: () => sent,
    cut() {
      down = true;
      tearDown();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((done) => {
        tearDown();
        server.close(() => done());
      }),
  };
}
