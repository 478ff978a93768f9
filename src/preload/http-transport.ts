/**
 * The web window's transport of the bridge contract (src/preload/ipc-contract.ts) over HTTP:
 * each operation is `POST /api/bridge/<name>` with `{"args": [...]}`, push events arrive as
 * server-sent events on `/api/events` (docs/PROTOCOL.md §Web window). Generic over the
 * contract. The session cookie rides along by itself (same origin); the page never sees the
 * token. src/preload/web.ts installs it as `window.updater`.
 */
import type { BridgeTransport, EventName } from './ipc-contract.js';

/** A refused or failed call, with the server's stable code (docs/SECURITY.md §Web window). */
export class WebBridgeError extends Error {
  override readonly name = 'WebBridgeError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Answer {
  readonly ok?: unknown;
  readonly result?: unknown;
  readonly code?: unknown;
  readonly error?: unknown;
}

/** The HTTP transport; `fetch` and `openStream` are injected so it is testable in Node. */
export function httpTransport(deps: {
  readonly fetch: typeof fetch;
  readonly openStream: (path: string) => EventSource;
}): BridgeTransport {
  let stream: EventSource | null = null;
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const deliver = (name: EventName, data: string): void => {
    let payload: unknown;
    try {
      payload = JSON.parse(data) as unknown;
    } catch {
      return; // a frame that is not JSON is not ours: ignore it rather than break the page
    }
    for (const listener of listeners.get(name) ?? []) listener(payload);
  };
  return {
    async invoke(name, args) {
      let response: Response;
      try {
        response = await deps.fetch(`/api/bridge/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ args }),
          credentials: 'same-origin',
          cache: 'no-store',
        });
      } catch {
        throw new WebBridgeError('BRIDGE', 'The updater service cannot be reached.');
      }
      const body = (await response.json().catch(() => ({}))) as Answer;
      if (response.ok && body.ok === true) return body.result;
      const code = typeof body.code === 'string' ? body.code : 'BRIDGE';
      const message = typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
      throw new WebBridgeError(code, message);
    },
    subscribe(name, listener) {
      let set = listeners.get(name);
      if (set === undefined) {
        set = new Set();
        listeners.set(name, set);
        stream ??= deps.openStream('/api/events');
        stream.addEventListener(name, (event) =>
          deliver(name, (event as MessageEvent<string>).data),
        );
      }
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    },
  };
}
