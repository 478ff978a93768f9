/**
 * The socket of one pipelined connection (pipeline-connection.ts): plain TCP, or TLS as
 * node:https's agent sets it up, so pipelining changes nothing of what is trusted.
 */
import { connect, isIP, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { tls } from '../lazy-builtin.js';

export interface ConnectionTarget {
  readonly hostname: string;
  readonly port: number;
  readonly connectTimeoutMs: number;
  /**
   * An `https:` origin: TLS with node's defaults, as node:https's agent sets them up (the
   * certificate verified against the trust store and the host name; SNI with the host name,
   * never with an IP literal, RFC 6066 §3), plus `tls` (trust anchors of the fetcher's owner)
   * and a session to resume.
   */
  readonly secure?: {
    readonly tls: Pick<ConnectionOptions, 'ca'>;
    readonly session: Buffer | undefined;
    /** A session ticket the server sent, for the origin's next connection. */
    readonly onSession: (session: Buffer) => void;
    /** A socket error: the origin drops its session, as node:https's agent does (§5). */
    readonly onFailure: () => void;
  };
}

/** Opens the socket to `target`, with no delay on small writes (GETs go out as they come). */
export function openSocket(target: ConnectionTarget): Socket {
  const secure = target.secure;
  if (secure === undefined) {
    return connect({ host: target.hostname, port: target.port, noDelay: true });
  }
  const socket = tls().connect({
    ...secure.tls,
    host: target.hostname,
    port: target.port,
    ...(isIP(target.hostname) === 0 ? { servername: target.hostname } : {}),
    ...(secure.session === undefined ? {} : { session: secure.session }),
  });
  socket.setNoDelay(true);
  socket.on('session', secure.onSession);
  socket.once('error', secure.onFailure);
  return socket;
}

/**
 * The event after which the socket takes requests: for TLS, once the handshake (and the
 * certificate check) is done, so a refused certificate fails the queued GETs instead of
 * re-sending them.
 */
export function readyEvent(target: ConnectionTarget): 'connect' | 'secureConnect' {
  return target.secure === undefined ? 'connect' : 'secureConnect';
}
