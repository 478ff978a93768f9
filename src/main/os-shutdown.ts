/**
 * The OS ending the session (docs/DESKTOP.md "Lifecycle"), Electron-free so it is unit-tested
 * with fakes: Windows tells the window (`query-session-end`, then `session-end`), Linux and
 * macOS tell `powerMonitor` (`shutdown`, whose preventDefault() delays the shutdown until the
 * app quits). Either way the core is closed: a pull in flight is aborted at once (its verified
 * bytes stay for a resume), a commit in flight runs to its end, then the state lock is
 * released. The OS does not wait long, so the wait is bounded (`graceMs`): past it the app
 * exits anyway. That never tears an install: a commit cut off after its journal is written is
 * rolled forward by the next start, one cut off before it leaves the old set (docs/UPDATER.md
 * §3), and the lock of a process that is gone (or of a previous boot) is taken over.
 */

/** Windows kills an app about 5 s after WM_ENDSESSION; stay inside that. */
export const SHUTDOWN_GRACE_MS = 4_000;

/** How the OS says it is ending the session (the Electron events, behind functions). */
export interface OsShutdownSource {
  /** Windows: BrowserWindow 'query-session-end' and 'session-end'. */
  onSessionEnd(listener: () => void): void;
  /** Linux, macOS: powerMonitor 'shutdown'. */
  onPowerShutdown(listener: (event: { preventDefault(): void }) => void): void;
}

export interface OsShutdownDeps {
  readonly platform: NodeJS.Platform;
  /** Closes the core (aborts a pull, lets a commit finish, releases the lock) and the rest. */
  readonly close: () => Promise<void>;
  /** Lets the window really close (window-lifecycle.ts). */
  readonly markQuitting: () => void;
  /** Ends the app at once (Electron: app.exit). */
  readonly exit: () => void;
  readonly timers: {
    setTimeout(callback: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
  };
  readonly log: (level: 'info' | 'warn' | 'error', message: string) => void;
  readonly graceMs?: number;
}

export type ShutdownOutcome = 'closed' | 'timed-out' | 'failed';

export interface OsShutdown {
  /** The shutdown under way, or null while the OS has not asked for one. */
  readonly pending: Promise<ShutdownOutcome> | null;
}

/** Listens for the OS ending the session on `deps.platform`. */
export function attachOsShutdown(source: OsShutdownSource, deps: OsShutdownDeps): OsShutdown {
  const graceMs = deps.graceMs ?? SHUTDOWN_GRACE_MS;
  let pending: Promise<ShutdownOutcome> | null = null;

  const closeWithin = async (): Promise<ShutdownOutcome> => {
    let timer: unknown;
    const late = new Promise<ShutdownOutcome>((resolve) => {
      timer = deps.timers.setTimeout(() => resolve('timed-out'), graceMs);
    });
    const closed = deps.close().then(
      (): ShutdownOutcome => 'closed',
      (error: unknown): ShutdownOutcome => {
        deps.log('error', `shutdown: closing the updater failed: ${String(error)}`);
        return 'failed';
      },
    );
    const outcome = await Promise.race([closed, late]);
    deps.timers.clearTimeout(timer);
    return outcome;
  };

  const begin = (why: string): Promise<ShutdownOutcome> => {
    if (pending !== null) return pending;
    deps.markQuitting();
    deps.log('info', `shutdown: ${why}; closing the updater`);
    pending = closeWithin().then((outcome) => {
      if (outcome === 'timed-out') {
        deps.log(
          'warn',
          `shutdown: the updater did not close within ${graceMs} ms; exiting (an interrupted commit is finished from its journal at the next start)`,
        );
      } else {
        deps.log('info', `shutdown: updater ${outcome}; exiting`);
      }
      deps.exit();
      return outcome;
    });
    return pending;
  };

  if (deps.platform === 'win32') {
    source.onSessionEnd(() => void begin('the Windows session is ending'));
  } else {
    source.onPowerShutdown((event) => {
      // Delays the OS until the app exits (Electron's powerMonitor docs).
      event.preventDefault();
      void begin('the system is shutting down');
    });
  }
  return {
    get pending() {
      return pending;
    },
  };
}
