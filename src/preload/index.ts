/**
 * The preload: the only bridge between the sandboxed window and the main process. It exposes
 * the contract's named methods (src/preload/ipc-contract.ts), never ipcRenderer itself
 * (Electron security checklist §20 "Do not expose Electron APIs to untrusted web content").
 * Generic over the contract: a new operation needs no code here. Bundled as CommonJS:
 * sandboxed preloads cannot be ESM.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { API_GLOBAL, EVENTS, OPERATIONS, createBridgeApi, type BridgeApi } from './ipc-contract.js';

const api = createBridgeApi({
  invoke: (name, args) => ipcRenderer.invoke(OPERATIONS[name].channel, ...args),
  subscribe: (name, listener) => {
    // Wrap so the renderer never receives the IpcRendererEvent (it carries `sender`).
    const wrapped = (_event: IpcRendererEvent, payload: unknown): void => listener(payload);
    const channel = EVENTS[name].channel;
    ipcRenderer.on(channel, wrapped);
    return () => {
      ipcRenderer.removeListener(channel, wrapped);
    };
  },
});

/** The window's API; the renderer imports this type only. */
export type Api = BridgeApi;

contextBridge.exposeInMainWorld(API_GLOBAL, api);
