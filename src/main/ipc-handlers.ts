/**
 * The window's operations on Electron IPC: one `ipcMain.handle` per operation of the contract
 * (src/preload/ipc-contract.ts), each behind the sender and argument check
 * (src/main/ipc-guard.ts), each answered by the app's handlers (src/app/bridge-handlers.ts).
 * Generic over the contract: a new operation needs no code here.
 */
import { ipcMain } from 'electron';
import { OPERATION_NAMES, OPERATIONS, type BridgeHandlers } from '#preload/ipc-contract.js';
import { runOperation } from '#app/bridge-handlers.js';
import { guardedOperation } from './ipc-guard.js';

/** Registers the handlers; `trustedId` names the window's webContents (null once it is gone). */
export function registerIpcHandlers(
  handlers: BridgeHandlers,
  trustedId: () => number | null,
): void {
  for (const name of OPERATION_NAMES) {
    ipcMain.handle(
      OPERATIONS[name].channel,
      guardedOperation(trustedId, (args) => runOperation(handlers, name, args)),
    );
  }
}
