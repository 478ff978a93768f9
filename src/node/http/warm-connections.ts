/**
 * Connections opened before the first request needs them (docs/UPDATER.md §11.2): a run's TCP
 * handshake to the registry then overlaps its local start (the state directory, its lock, the
 * state) instead of following it, one round trip less before the manifest's first byte. A warm
 * connection is handed to the first request the agent opens a connection for to its origin,
 * as if the agent had just opened it (node's keep-alive rules apply from there); one that
 * failed or closed first is dropped and the request opens its own. It holds no process open
 * (unref'd until handed out) and is closed when unused for `idleMs`.
 *
 * https too: the connection is made by the agent's own `createConnection` with the options the
 * agent would give it for the first request (its own options, which hold the trust anchors, the
 * host, the port and the server name node derives from the Host header), so the TLS handshake
 * checks the certificate exactly as the request's own connection would, and node's TLS session
 * cache is fed as usual. It is handed only to a request whose agent name (node's key for
 * connections that may be shared: host, port, server name and every TLS option) is the one it
 * was made under; a handshake that fails drops it, and the request then connects and fails by
 * itself.
 *
 * The CLI's launcher may have opened the TCP connection before the updater was even loaded
 * (src/cli/early-connect.ts, docs/UPDATER.md §11.2): `open` then takes that socket instead of
 * connecting, as the agent would have made it (its no-delay and keep-alive options), and for
 * https the agent's own `createConnection` runs the TLS handshake over it, so the checks are
 * the same.
 */
import type { Agent } from 'node:http';
import { isIP, type Socket } from 'node:net';

/** An unused warm connection is closed after this long (servers drop idle ones anyway). */
export const WARM_IDLE_MS = 10_000;

interface Warm {
  readonly socket: Socket;
  readonly drop: () => void;
  readonly timer: NodeJS.Timeout;
}

const EVENTS = ['error', 'close', 'end'] as const;

/** Whether `agent` is node:https's (its connections are TLS). */
function isHttps(agent: Agent): boolean {
  return (agent as Agent & { protocol?: string }).protocol === 'https:';
}

/** What an agent passes its `createConnection` (node's Agent.createSocket). */
type ConnectOptions = Record<string, unknown> & { host: string; port: number };

/**
 * The options node's Agent.createSocket would give `createConnection` for a request to
 * `host`:`port` with no Host header of its own: the agent's options over the request's host and
 * port and, for https, the server name node derives from the Host header it sets (the host, or
 * none for an IP address).
 */
function connectOptions(agent: Agent, host: string, port: number): ConnectOptions {
  const own = (agent as Agent & { options?: Record<string, unknown> }).options ?? {};
  const options: ConnectOptions = { ...own, host, port };
  if (isHttps(agent)) {
    options['servername'] = isIP(host) === 0 ? host : '';
  }
  return options;
}

/**
 * A TCP connection opened to `host`:`port` before the updater loaded (src/cli/early-connect.ts):
 * `adopt` hands over the socket once (undefined when it already failed or closed), after which
 * the opener's own listeners and timer are gone.
 */
export interface EarlySocket {
  readonly secure: boolean;
  readonly host: string;
  readonly port: number;
  adopt(): Socket | undefined;
}

/** `socket` set as the agent's `createConnection` would have set a connection it opened. */
function asAgentWould(socket: Socket, options: ConnectOptions): Socket {
  socket.setNoDelay(options['noDelay'] === true);
  if (options['keepAlive'] === true) {
    const delay = options['keepAliveInitialDelay'];
    socket.setKeepAlive(true, typeof delay === 'number' ? delay : 0);
  }
  return socket;
}

/** Warm connections of one node:http(s) agent, by the agent's own name for an origin. */
export class WarmConnections {
  private readonly warm = new Map<string, Warm>();
  /** The agent's own `createConnection`, as node calls it for a new connection. */
  private readonly connect: (options: ConnectOptions) => Socket;

  constructor(
    private readonly agent: Agent,
    private readonly idleMs = WARM_IDLE_MS,
  ) {
    const open = agent.createConnection.bind(agent);
    this.connect = (options) => open(options) as Socket;
    agent.createConnection = (options, callback) =>
      this.take(agent.getName(options)) ?? open(options, callback);
  }

  /** Warm connections not yet handed out. */
  get waiting(): number {
    return this.warm.size;
  }

  /**
   * Opens a connection to `host`:`port` now, unless one is already waiting there; over
   * `early` (a TCP connection already opening to that address) when it is given.
   */
  open(host: string, port: number, early?: Socket): void {
    const options = connectOptions(this.agent, host, port);
    const name = this.agent.getName(options);
    if (this.warm.has(name)) {
      early?.destroy();
      return;
    }
    // node's Agent.createSocket names the connection so for https's session cache.
    const socket =
      early !== undefined && !isHttps(this.agent)
        ? asAgentWould(early, options)
        : this.connect({
            ...options,
            _agentKey: name,
            ...(early === undefined ? {} : { socket: early }),
          });
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
