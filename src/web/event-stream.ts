/**
 * Server-sent events for the web window (WHATWG HTML §9.2): the push events of the bridge
 * contract, one `event: <name>` per push, to a bounded number of open pages. A comment line
 * every `heartbeatMs` keeps proxies and idle timeouts from closing a quiet stream.
 */
import type { ServerResponse } from 'node:http';

export interface EventStreamOptions {
  /** Most pages listening at once; one more is refused (TOO_MANY_STREAMS). */
  readonly maxClients: number;
  readonly heartbeatMs: number;
  /** A page that stops reading is dropped once this much is queued for it (bounded memory). */
  readonly maxQueuedBytes: number;
}

export interface EventStreams {
  /** Adopts a response as a stream; false when full (the caller refuses it). */
  open(res: ServerResponse, headers: Record<string, string>): boolean;
  broadcast(event: string, payload: unknown): void;
  readonly size: number;
  closeAll(): void;
}

/** One SSE frame; JSON never contains a raw newline, so one data line suffices. */
export function sseFrame(event: string, payload: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload) ?? 'null'}\n\n`;
}

export function createEventStreams(options: EventStreamOptions): EventStreams {
  const clients = new Set<ServerResponse>();
  let heartbeat: NodeJS.Timeout | null = null;
  const stopHeartbeatIfIdle = (): void => {
    if (clients.size === 0 && heartbeat !== null) {
      clearInterval(heartbeat);
      heartbeat = null;
    }
  };
  return {
    open(res, headers) {
      if (clients.size >= options.maxClients) return false;
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8' });
      // Tells EventSource how long to wait before it reconnects after a drop.
      res.write('retry: 2000\n\n');
      clients.add(res);
      res.on('close', () => {
        clients.delete(res);
        stopHeartbeatIfIdle();
      });
      heartbeat ??= setInterval(() => {
        for (const client of clients) client.write(': ping\n\n');
      }, options.heartbeatMs);
      heartbeat.unref();
      return true;
    },
    broadcast(event, payload) {
      const frame = sseFrame(event, payload);
      for (const client of clients) {
        // EventSource reconnects and the page asks for the status again: nothing is lost.
        if (client.writableLength > options.maxQueuedBytes) client.destroy();
        else client.write(frame);
      }
    },
    get size() {
      return clients.size;
    },
    closeAll() {
      for (const client of clients) client.end();
      clients.clear();
      stopHeartbeatIfIdle();
    },
  };
}
