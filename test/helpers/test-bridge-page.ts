/**
 * The browser half of the e2e test bridge: installs `window.updater` with exactly the
 * contract's API (src/preload/ipc-contract.ts, the type both real bridges implement) on top of
 * two bindings the Node half exposes through Playwright (`__bridgeInvoke`, a CDP binding over
 * Playwright's websocket, and `__bridgePush`, called with page.evaluate). Bindings and init
 * scripts run outside the page's CSP, so the page keeps its CSP exactly as in Electron.
 *
 * Serialised with Function.prototype.toString() by page.addInitScript: no imports are used at
 * runtime inside, only types; the operation and event names arrive as its argument, so a new
 * operation of the contract needs no change here.
 */
import type { BridgeApi, EventName, OperationName } from '#preload/ipc-contract.js';

export type BridgeMethod = OperationName;

export interface TestBridgeNames {
  readonly operations: readonly OperationName[];
  readonly events: readonly EventName[];
}

interface BridgeWindow {
  __bridgeInvoke(method: OperationName, args: unknown[]): Promise<unknown>;
  __bridgePush?: (event: EventName, payload: unknown) => void;
  updater?: BridgeApi;
}

/** Runs in the page before its own scripts. */
export function installTestBridge(names: TestBridgeNames): void {
  const w = window as unknown as BridgeWindow;
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  w.__bridgePush = (event, payload) => {
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };
  const api: Record<string, unknown> = {};
  for (const name of names.operations) {
    api[name] = (...args: unknown[]) => w.__bridgeInvoke(name, args);
  }
  for (const event of names.events) {
    const method = `on${event.charAt(0).toUpperCase()}${event.slice(1)}`;
    api[method] = (listener: (payload: unknown) => void) => {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    };
  }
  // Same name, same frozen shape the preload exposes through contextBridge.
  w.updater = Object.freeze(api) as unknown as BridgeApi;
}
