/**
 * The preload: the only bridge between the sandboxed window and the main process. It exposes
 * named methods, never ipcRenderer itself (Electron security checklist §20 "Do not expose
 * Electron APIs to untrusted web content"). Bundled as CommonJS: sandboxed preloads cannot be ESM.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  API_GLOBAL,
  IPC_CHANNELS,
  STATUS_EVENT_CHANNEL,
  type ActivityResult,
  type AppStatus,
} from './ipc-contract.js';

const api = {
  /** Current updater status. */
  getStatus: (): Promise<AppStatus> =>
    ipcRenderer.invoke(IPC_CHANNELS.getStatus) as Promise<AppStatus>,
  /** Starts a check (joins the run in flight); resolves when the run ends. */
  checkNow: (): Promise<void> => ipcRenderer.invoke(IPC_CHANNELS.checkNow) as Promise<void>,
  /** Top public machines of the current window, fetched by the main process. */
  getActivity: (): Promise<ActivityResult> =>
    ipcRenderer.invoke(IPC_CHANNELS.getActivity) as Promise<ActivityResult>,
  /** Subscribes to status pushes; returns the unsubscribe function. */
  onStatus: (listener: (status: AppStatus) => void): (() => void) => {
    // Wrap so the renderer never receives the IpcRendererEvent (it carries `sender`).
    const wrapped = (_event: IpcRendererEvent, status: AppStatus): void => listener(status);
    ipcRenderer.on(STATUS_EVENT_CHANNEL, wrapped);
    return () => {
      ipcRenderer.removeListener(STATUS_EVENT_CHANNEL, wrapped);
    };
  },
};

/** The window's API; the renderer imports this type only. */
export type Api = typeof api;

contextBridge.exposeInMainWorld(API_GLOBAL, api);
