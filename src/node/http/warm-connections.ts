/**
 * Connections opened before the first request needs them (docs/UPDATER.md §11.2): a run's TCP
 * handshake to the registry then overlaps its local start (the state directory, its lock, the
 * state) instead of following it, one round trip less before the manifest's first byte. A warm
 * connection is handed to the first request the agent opens a connection for to its origin,
 * as if the agent had just opened it (node's keep-alive rules apply from there); one that
 * failed or closed first is dropped and the request opens its own. It holds no process open
 * (unref'd until handed out) and is closed when unused for `idleMs`.
 *
 * Plain http only: an https connection is verified by the TLS options node computes per request
 * (server name, session), which this does not reproduce.
 */
import type { Agent } from 'node:http';
import { createConnection, type Socket } from 'node:net';

/** An unused warm connection is closed after this long (servers drop idle ones anyway). */
export const WARM_IDLE_MS = 10_000;

interface Warm {
  readonly socket: Socket;
  readonly drop: () => void;
  readonly timer: NodeJS.Timeout;
}

const EVENTS = ['error', 'close', 'end'] as const;

/** Warm connections of one node:http agent, by the agent's own name for an origin. */
export class WarmConnections {
  private readonly warm = new Map<string, Warm>();

  constructor(
    private readonly agent: Agent,
    private readonly idleMs = WARM_IDLE_MS,
  ) {
    const open = agent.createConnection.bind(agent);
    agent.createConnection = (options, callback) =>
      this.take(agent.getName(options)) ?? open(options, callback);
  }

  /** Warm connections not yet handed out. */
  get waiting(): number {
    return this.warm.size;
  }

  /** Opens a connection to `host`:`port` now, unless one is already waiting there. */
  open(host: string, port: number): void {
    const name = this.agent.getName({ host, port });
    if (this.warm.has(name)) return;
    const socket = createConnection({ host, port, noDelay: true });
    socket.unref();
    // Not handed out yet: a failure, a close by the server or the idle time only drops it.
    const drop = (): void => {
      if (this.warm.get(name)?.socket === socket) this.warm.delete(name);
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(drop, this.idleMs);
    timer.unref();
    for (const event of EVENTS) socket.once(event, drop);
    this.warm.set(name, { socket, drop, timer });
  }

  /** The warm connection for `name`, if it is still usable; it is then the caller's. */
  private take(name: string): Socket | undefined {
    const warm = this.warm.get(name);
    if (warm === undefined) return undefined;
    this.warm.delete(name);
    const { socket, drop, timer } = warm;
    clearTimeout(timer);
    for (const event of EVENTS) socket.off(event, drop);
    if (socket.destroyed || socket.readableEnded || !socket.writable) {
      socket.destroy();
      return undefined;
    }
    socket.ref();
    return socket;
  }
}
