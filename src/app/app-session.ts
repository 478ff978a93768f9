/**
 * The app controller the window, the tray and the bridge hold for the whole run, over a core
 * that Save in the settings can close and open again on another registry (docs/DESKTOP.md
 * "Settings"). Status listeners stay subscribed across restarts; every call goes to the
 * controller of the moment. Electron-free: `open` builds one controller (open-updater.ts).
 */
import type { AppStatus } from '#preload/ipc-contract.js';
import type { AppController } from './app-controller.js';

/** One opened controller and what must close after it (the demo registry). */
export interface SessionPart {
  readonly controller: AppController;
  /** What the status card calls the registry. */
  readonly label: string;
  /** Closed after the controller (the in-process demo registry); null when none. */
  readonly closeAfter: (() => Promise<void>) | null;
}

export interface AppSession extends AppController {
  /** Closes the controller and its registry, then opens and starts new ones. */
  restart(): Promise<void>;
  /** The registry label of the controller of the moment. */
  label(): string;
}

/** Opens the first part; start() starts it. */
export async function openAppSession(open: () => Promise<SessionPart>): Promise<AppSession> {
  let part = await open();
  let closed = false;
  const listeners = new Set<(status: AppStatus) => void>();
  const forward = (status: AppStatus): void => {
    for (const listener of listeners) listener(status);
  };
  let unsubscribe = part.controller.onStatus(forward);
  /** Restarts and close run one after the other, never over each other. */
  let queue: Promise<void> = Promise.resolve();
  const serial = (step: () => Promise<void>): Promise<void> => {
    const run = queue.then(step);
    queue = run.catch(() => undefined);
    return run;
  };

  const closePart = async (old: SessionPart): Promise<void> => {
    await old.controller.close();
    await old.closeAfter?.();
  };

  return {
    getStatus: () => part.controller.getStatus(),
    checkNow: () => part.controller.checkNow(),
    getActivity: () => part.controller.getActivity(),
    onStatus(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    setPaused: (paused) => part.controller.setPaused(paused),
    cancel: () => part.controller.cancel(),
    rollBack: () => part.controller.rollBack(),
    verify: () => part.controller.verify(),
    openLog: () => part.controller.openLog(),
    installNow: () => part.controller.installNow(),
    skipVersion: (version) => part.controller.skipVersion(version),
    start: () => part.controller.start(),
    label: () => part.label,
    restart: () =>
      serial(async () => {
        if (closed) return;
        unsubscribe();
        // The old core releases its state lock before the new one takes it.
        await closePart(part);
        part = await open();
        unsubscribe = part.controller.onStatus(forward);
        await part.controller.start();
        forward(part.controller.getStatus());
      }),
    close: () =>
      serial(async () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        listeners.clear();
        await closePart(part);
      }),
  };
}
