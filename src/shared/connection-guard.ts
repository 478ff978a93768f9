/**
 * The connection cap of the companion server (docs/SERVER.md §Limits). Every accepted socket
 * is counted; when one more would pass the cap, the guard makes room the way nginx reuses its
 * keep-alive connections: it closes the socket that has waited longest without a request in
 * flight, else the oldest one still receiving a request (a body trickle), and only when every
 * socket is being answered does it refuse the newcomer with 503 SERVER_BUSY. So an idle or
 * slow-body flood cannot lock out a health probe, and file descriptors stay for the process.
 * A per-address share keeps one client address from holding the whole budget once it is
 * contested: at the cap, a newcomer from an address holding its share or more makes room among
 * that address's own sockets by the same rule (so a legitimate client sharing the address, as
 * every local one does on loopback, still gets in) and is refused only when all of them are
 * being answered; a newcomer from any other address takes the room from an address over its
 * share first. Below the cap nothing is scarce and an address may hold more: closing its
 * sockets then would only make a client that reconnects at once cost more than its idle ones.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '#protocol';

interface Tracked {
  /** The client address (the key of its per-address group). */
  readonly address: string;
  /** When the socket opened or its last answer ended (ms, monotonic). */
  since: number;
  /** The request in flight, until its answer ends. */
  request: IncomingMessage | undefined;
}

function busy(message: string): string {
  const body = JSON.stringify(errorBody('SERVER_BUSY', message));
  return (
    'HTTP/1.1 503 Service Unavailable\r\n' +
    'Content-Type: application/json; charset=utf-8\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    'Retry-After: 1\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}
const BUSY = busy('the server is at its connection limit; retry shortly');
const ADDRESS_BUSY = busy('this address is at its connection limit; retry shortly');

export interface GuardCounters {
  /** Sockets closed to make room for a newer one. */
  readonly evicted: number;
  /** New sockets refused with 503 because every open one was being answered. */
  readonly refused: number;
  /** Sockets of an address at or over its share closed to make room at the cap. */
  readonly evicted_per_address: number;
  /** New sockets refused with 503 at the cap: their address holds its share, all answering. */
  readonly refused_per_address: number;
}

type Candidates = Iterable<[Socket, Tracked]>;

export class ConnectionGuard {
  readonly #open = new Map<Socket, Tracked>();
  /** The open sockets of each client address. */
  readonly #byAddress = new Map<string, Map<Socket, Tracked>>();
  readonly #counts = { evicted: 0, refused: 0, evicted_per_address: 0, refused_per_address: 0 };

  /**
   * @param cap open sockets at most
   * @param now a monotonic clock in ms
   * @param perAddressCap one client address's share of `cap` (default: all of it)
   */
  constructor(
    private readonly cap: number,
    private readonly now: () => number = () => performance.now(),
    private readonly perAddressCap: number = cap,
  ) {}

  /** Open sockets now. */
  get size(): number {
    return this.#open.size;
  }

  get counters(): GuardCounters {
    return { ...this.#counts };
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
    const address = socket.remoteAddress ?? '';
    if (this.#open.size >= this.cap && !this.#makeRoom(socket, address)) return;
    // Looked up again: an eviction may have emptied (and dropped) the address's group.
    let group = this.#byAddress.get(address);
    if (group === undefined) this.#byAddress.set(address, (group = new Map<Socket, Tracked>()));
    const tracked: Tracked = { address, since: this.now(), request: undefined };
    this.#open.set(socket, tracked);
    group.set(socket, tracked);
    socket.once('close', () => this.#forget(socket, address));
  }

  /** At the cap: closes a socket for the newcomer from `address`, or refuses it (false). */
  #makeRoom(socket: Socket, address: string): boolean {
    const own = this.#byAddress.get(address);
    // A share of the whole cap is no share: the whole cap's rule alone decides.
    if (own !== undefined && own.size >= this.perAddressCap && this.perAddressCap < this.cap) {
      if (this.#evictOne(own)) return this.#count('evicted_per_address');
      this.#refuse(socket, ADDRESS_BUSY, 'refused_per_address');
      return false;
    }
    if (this.#evictOne(this.#overShare())) return this.#count('evicted_per_address');
    if (this.#evictOne(this.#open)) return this.#count('evicted');
    this.#refuse(socket, BUSY, 'refused');
    return false;
  }

  /** The sockets of every address holding more than its share. */
  *#overShare(): Candidates {
    for (const group of this.#byAddress.values()) if (group.size > this.perAddressCap) yield* group;
  }

  #count(counter: 'evicted' | 'evicted_per_address'): true {
    this.#counts[counter] += 1;
    return true;
  }

  #refuse(socket: Socket, answer: string, counter: 'refused' | 'refused_per_address'): void {
    this.#counts[counter] += 1;
    socket.end(answer);
    socket.destroySoon();
  }

  #forget(socket: Socket, address: string): void {
    this.#open.delete(socket);
    const own = this.#byAddress.get(address);
    if (own?.delete(socket) === true && own.size === 0) this.#byAddress.delete(address);
  }

  /**
   * Closes the best of `candidates` to make room: the longest idle, else the oldest still
   * receiving its request; false when every one is being answered.
   */
  #evictOne(candidates: Candidates): boolean {
    let idle: [Socket, Tracked] | undefined;
    let receiving: [Socket, Tracked] | undefined;
    for (const [socket, t] of candidates) {
      if (t.request === undefined) {
        if (idle === undefined || t.since < idle[1].since) idle = [socket, t];
      } else if (!t.request.complete && (receiving === undefined || t.since < receiving[1].since)) {
        receiving = [socket, t];
      }
    }
    const victim = idle ?? receiving;
    if (victim === undefined) return false;
    this.#forget(victim[0], victim[1].address);
    victim[0].destroy();
    return true;
  }
}
