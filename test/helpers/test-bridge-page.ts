/**
 * The browser half of the e2e test bridge: installs `window.updater` with exactly the preload's
 * Api (src/preload/index.ts) on top of two bindings the Node half exposes through Playwright
 * (`__bridgeInvoke`, a CDP binding over Playwright's websocket, and `__bridgePush`, called with
 * page.evaluate). Bindings and init scripts run outside the page's CSP, so the page itself
 * keeps `connect-src 'none'` exactly as in Electron.
 *
 * Serialised with Function.prototype.toString() by page.addInitScript: no imports are used at
 * runtime inside, only types.
 */
import type { Api } from '../../src/preload/index.js';
import type { ActivityResult, AppStatus } from '../../src/preload/ipc-contract.js';

export type BridgeMethod = 'getStatus' | 'checkNow' | 'getActivity';

interface BridgeWindow {
  __bridgeInvoke(method: BridgeMethod): Promise<unknown>;
  __bridgePush?: (status: AppStatus) => void;
  updater?: Api;
}

/** Runs in the page before its own scripts. */
export function installTestBridge(): void {
  const w = window as unknown as BridgeWindow;
  const listeners = new Set<(status: AppStatus) => void>();
  w.__bridgePush = (status) => {
    for (const listener of listeners) listener(status);
  };
  const api: Api = {
    getStatus: () => w.__bridgeInvoke('getStatus') as Promise<AppStatus>,
    checkNow: async () => {
      await w.__bridgeInvoke('checkNow');
    },
    getActivity: () => w.__bridgeInvoke('getActivity') as Promise<ActivityResult>,
    onStatus: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
  // Same name, same frozen shape the preload exposes through contextBridge.
  w.updater = Object.freeze(api);
}
