/**
 * The web window's preload: what src/preload/index.ts is in Electron, for a plain browser tab.
 * Installs `window.updater` (the contract's BridgeApi) over the HTTP transport, once, frozen,
 * before the renderer's own script runs (the web window's server loads this bundle first).
 */
import { httpTransport } from './http-transport.js';
import { API_GLOBAL, createBridgeApi } from './ipc-contract.js';

const api = createBridgeApi(
  httpTransport({
    fetch: (input, init) => fetch(input, init),
    openStream: (path) => new EventSource(path),
  }),
);
Object.defineProperty(window, API_GLOBAL, { value: api, enumerable: true });
