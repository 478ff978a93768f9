/**
 * The socket limits of every port we accept connections on, the companion server's and the
 * web window's (`updater serve`) alike (docs/SERVER.md §Limits, docs/SECURITY.md §Web window):
 * head, body, keep-alive and idle timeouts, and a connection cap that leaves a reserve of file
 * descriptors for the process's own files. What nginx and Go's net/http do by default.
 */
import type { Server, ServerOptions } from 'node:http';
import { ConnectionGuard } from './connection-guard.js';
import { addressCap, connectionCap, openFilesLimit } from './fd-limit.js';

export interface SocketLimits {
  /** A request head must arrive within this after the connection opens or the last answer. */
  readonly headersTimeoutMs: number;
  /** The whole request, head and body, must arrive within this (a body trickle is closed). */
  readonly requestTimeoutMs: number;
  /** A kept-alive connection with no request in flight is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** A socket with no bytes in either direction for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Open connections at most; beyond it an idle one is evicted or the new one refused. */
  readonly maxConnections: number;
  /** File descriptors kept free for the process's own files (the cap shrinks to leave them). */
  readonly fdReserve: number;
  /**
   * Open connections of one client address at most, lowered in proportion when the reserve
   * lowers the cap; absent: `maxConnections` alone (the web window, whose clients are local).
   */
  readonly maxConnectionsPerAddress?: number;
}

/**
 * How often node looks for heads and bodies past their timeout: often enough that a limit
 * is kept within a quarter of itself, never more than once per 50 ms.
 */
export function checkingIntervalMs(limits: SocketLimits): number {
  return Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4)));
}

/** The options of `createServer` that carry the limits (only settable at creation). */
export function socketServerOptions(limits: SocketLimits): ServerOptions {
  return {
    // node refuses a head timeout longer than the whole request's.
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: checkingIntervalMs(limits),
  };
}

/**
 * The rest of the limits on a server made with `socketServerOptions`: keep-alive and idle
 * timeouts and the connection cap (under this process's open-files limit). Call before it
 * listens; the guard it returns counts evictions and refusals.
 */
export function limitSockets(server: Server, limits: SocketLimits): ConnectionGuard {
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Without a 'timeout' listener node destroys a socket idle this long (reads and writes).
  server.setTimeout(limits.idleTimeoutMs);
  const cap = connectionCap(limits.maxConnections, limits.fdReserve, openFilesLimit());
  const perAddress = limits.maxConnectionsPerAddress;
  const guard = new ConnectionGuard(
    cap,
    undefined,
    perAddress === undefined ? cap : addressCap(perAddress, limits.maxConnections, cap),
  );
  guard.attach(server);
  return guard;
}
