/**
 * The window's operations on Electron IPC: one `ipcMain.handle` per invoke channel of the
 * contract (src/preload/ipc-contract.ts), each behind the sender and argument check
 * (src/main/ipc-guard.ts), each answered by the app controller.
 */
import { ipcMain } from 'electron';
import { IPC_CHANNELS } from '../preload/ipc-contract.js';
import type { AppController } from './app-controller.js';
import { guarded } from './ipc-guard.js';

/** Registers the handlers; `trustedId` names the window's webContents (null once it is gone). */
export function registerIpcHandlers(c: AppController, trustedId: () => number | null): void {
  ipcMain.handle(
    IPC_CHANNELS.getStatus,
    guarded(trustedId, () => c.getStatus()),
  );
  ipcMain.handle(
    IPC_CHANNELS.checkNow,
    guarded(trustedId, () => c.checkNow()),
  );
  ipcMain.handle(
    IPC_CHANNELS.getActivity,
    guarded(trustedId, () => c.getActivity()),
  );
}
