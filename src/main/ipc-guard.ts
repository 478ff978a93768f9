/**
 * Every IPC handler checks its sender (Electron security checklist §17 "Validate the sender
 * of all IPC messages"): the message must come from our window's own webContents, from its
 * main frame, and that frame must show our own page (app://renderer, src/app/app-protocol.ts),
 * never a page the window was somehow navigated to, nor a file:// page.
 */
import type { IpcMainInvokeEvent } from 'electron';
import { APP_HOST, APP_SCHEME } from '#app/app-protocol.js';

/** The parts of an IPC event the guard reads (kept small so tests can build one). */
export interface SenderInfo {
  readonly sender: { readonly id: number };
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null;
}

/** True when the event comes from the trusted window's top frame showing our own page. */
export function isTrustedSender(event: SenderInfo, trustedWebContentsId: number | null): boolean {
  if (trustedWebContentsId === null || event.sender.id !== trustedWebContentsId) return false;
  const frame = event.senderFrame;
  // A destroyed or navigated-away frame is null; an iframe has a parent: both refused.
  if (frame === null || frame.parent !== null) return false;
  let url: URL;
  try {
    url = new URL(frame.url);
  } catch {
    return false;
  }
  return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST;
}

/** Thrown back to the renderer (as a rejected invoke) when the sender is not ours. */
export class UntrustedSenderError extends Error {
  override readonly name = 'UntrustedSenderError';
  readonly code = 'UNTRUSTED_SENDER';
  constructor() {
    super('IPC message refused: unknown sender');
  }
}

/** Thrown back to the renderer when a trusted sender passes arguments a channel does not take. */
export class InvalidIpcArgumentsError extends Error {
  override readonly name = 'InvalidIpcArgumentsError';
  readonly code = 'BAD_ARGUMENTS';
  constructor() {
    super('IPC message refused: arguments this channel does not take');
  }
}

/**
 * Wraps an ipcMain.handle handler with the sender check, then hands the raw arguments to
 * `run`, which checks them against the contract (src/preload/ipc-contract.ts) and returns
 * null to refuse them (checklist §17: validate what crosses the boundary, not only who sent
 * it). Nothing runs for a foreign sender or refused arguments.
 */
export function guardedOperation<T>(
  trustedWebContentsId: () => number | null,
  run: (args: readonly unknown[]) => Promise<T> | null,
): (event: IpcMainInvokeEvent | SenderInfo, ...args: unknown[]) => Promise<T> {
  return async (event, ...args) => {
    if (!isTrustedSender(event, trustedWebContentsId())) throw new UntrustedSenderError();
    const pending = run(args);
    if (pending === null) throw new InvalidIpcArgumentsError();
    return pending;
  };
}

/** guardedOperation for a channel that takes no arguments: any argument is refused. */
export function guarded<T>(
  trustedWebContentsId: () => number | null,
  handler: () => T | Promise<T>,
): (event: IpcMainInvokeEvent | SenderInfo, ...args: unknown[]) => Promise<T> {
  return guardedOperation(trustedWebContentsId, (args) =>
    args.length === 0 ? Promise.resolve().then(handler) : null,
  );
}
