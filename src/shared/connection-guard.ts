/**
 * The connection cap of the companion server (docs/SERVER.md §Limits). Every accepted socket
 * is counted; when one more would pass the cap, the guard makes room the way nginx reuses its
 * keep-alive connections: it closes the socket that has waited longest without a request in
 * flight, else the oldest one still receiving a request (a body trickle), and only when every
 * socket is being answered does it refuse the newcomer with 503 SERVER_BUSY. So an idle or
 * slow-body flood cannot lock out a health probe, and file descriptors stay for the process.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '#protocol';

interface Tracked {
  /** When the socket opened or its last answer ended (ms, monotonic). */
  since: number;
  /** The request in flight, until its answer ends. */
  request: IncomingMessage | undefined;
}

const BUSY_BODY = JSON.stringify(
  errorBody('SERVER_BUSY', 'the server is at its connection limit; retry shortly'),
);
const BUSY =
  'HTTP/1.1 503 Service Unavailable\r\n' +
  'Content-Type: application/json; charset=utf-8\r\n' +
  'X-Content-Type-Options: nosniff\r\n' +
  'Retry-After: 1\r\n' +
  `Content-Length: ${Buffer.byteLength(BUSY_BODY)}\r\n` +
  'Connection: close\r\n\r\n' +
  BUSY_BODY;

export interface GuardCounters {
  /** Sockets closed to make room for a newer one. */
  readonly evicted: number;
  /** New sockets refused with 503 because every open one was being answered. */
  readonly refused: number;
}

export class ConnectionGuard {
  readonly #open = new Map<Socket, Tracked>();
  #evicted = 0;
  #refused = 0;

  constructor(
    private readonly cap: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Open sockets now. */
  get size(): number {
    return this.#open.size;
  }

  get counters(): GuardCounters {
    return { evicted: this.#evicted, refused: this.#refused };
  }

  /** Watches `server`'s sockets and requests; call once, before it listens. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.#accept(socket));
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const tracked = this.#open.get(request.socket);
      if (tracked === undefined) return;
      tracked.request = request;
      response.once('close', () => {
        tracked.request = undefined;
        tracked.since = this.now();
      });
    });
  }

  #accept(socket: Socket): void {
    if (this.#open.size >= this.cap && !this.#evictOne()) {
      this.#refused += 1;
      socket.end(BUSY);
      socket.destroySoon();
      return;
    }
    this.#open.set(socket, { since: this.now(), request: undefined });
    socket.once('close', () => this.#open.delete(socket));
  }

  /** Closes the best candidate to make room; false when every socket is being answered. */
  #evictOne(): boolean {
    let idle: [Socket, number] | undefined;
    let receiving: [Socket, number] | undefined;
    for (const [socket, t] of this.#open) {
      if (t.request === undefined) {
        if (idle === undefined || t.since < idle[1]) idle = [socket, t.since];
      } else if (!t.request.complete && (receiving === undefined || t.since < receiving[1])) {
        receiving = [socket, t.since];
      }
    }
    const victim = (idle ?? receiving)?.[0];
    if (victim === undefined) return false;
    this.#open.delete(victim);
    victim.destroy();
    this.#evicted += 1;
    return true;
  }
}
