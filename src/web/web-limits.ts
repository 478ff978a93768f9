/** The web window's socket limits and their defaults (docs/SECURITY.md §Web window). */
import type { SocketLimits } from '#shared/socket-limits.js';

/**
 * The web window's socket limits (docs/SECURITY.md §Web window): a local user without the
 * token can open sockets and send nothing, or a head and then a trickle of body; these close
 * them, and the cap evicts the longest idle one before a page load or a bridge call is
 * refused. The idle timeout stays above the event stream's 15 s heartbeat, which keeps an open
 * window's stream alive; the reserve leaves descriptors for the updater's own runs (state
 * file, blobs, downloads).
 */
export const WEB_SOCKET_LIMITS: SocketLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  maxConnections: 128,
  fdReserve: 256,
};
