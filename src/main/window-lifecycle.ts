/**
 * The tray window's lifecycle without traps (docs/DESKTOP.md "Lifecycle"), Electron-free so
 * it is unit-tested with plain fakes:
 * - closing (Alt+F4, Cmd+W, the window manager) hides the window instead of destroying it,
 *   so the tray can show it again; only a real quit lets it close;
 * - a renderer that crashes or is killed (`render-process-gone`) and a page that fails to
 *   load (`did-fail-load`) are logged and the page is reloaded, at most `maxReloads` times
 *   in `reloadBudgetMs`, so a page that crashes on load cannot spin the CPU forever.
 */
import type { CloseAction } from './launch-mode.js';

/** The slice of BrowserWindow this module uses. */
export interface LifecycleWindow {
  on(event: 'close', listener: (event: { preventDefault(): void }) => void): unknown;
  hide(): void;
  minimize(): void;
  isDestroyed(): boolean;
  readonly webContents: {
    on(
      event: 'render-process-gone',
      listener: (event: unknown, details: { reason: string; exitCode: number }) => void,
    ): unknown;
    on(
      event: 'did-fail-load',
      listener: (
        event: unknown,
        errorCode: number,
        errorDescription: string,
        validatedURL: string,
        isMainFrame: boolean,
      ) => void,
    ): unknown;
    reload(): void;
  };
}

export interface WindowLifecycleDeps {
  /** True once the app is quitting: then the window may really close. */
  readonly isQuitting: () => boolean;
  readonly nowMs: () => number;
  readonly log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Reloads allowed within `reloadBudgetMs` (default 3 in 60 s). */
  readonly maxReloads?: number;
  readonly reloadBudgetMs?: number;
  /**
   * What closing does (launch-mode.ts closeAction); 'hide' when absent. 'quit' calls `quit`,
   * which goes through the app's ordered shutdown.
   */
  readonly closeAction?: () => CloseAction;
  readonly quit?: () => void;
}

export const DEFAULT_MAX_RELOADS = 3;
export const DEFAULT_RELOAD_BUDGET_MS = 60_000;
/** Chromium's net::ERR_ABORTED: a load replaced by another one, not a failure. */
const ERR_ABORTED = -3;

/** Wires close, render-process-gone and did-fail-load on `win`. */
export function attachWindowLifecycle(win: LifecycleWindow, deps: WindowLifecycleDeps): void {
  const maxReloads = deps.maxReloads ?? DEFAULT_MAX_RELOADS;
  const budgetMs = deps.reloadBudgetMs ?? DEFAULT_RELOAD_BUDGET_MS;
  const reloads: number[] = [];

  win.on('close', (event) => {
    if (deps.isQuitting()) return;
    const action = deps.closeAction?.() ?? 'hide';
    event.preventDefault();
    if (action === 'minimise') win.minimize();
    else if (action === 'quit') deps.quit?.();
    else win.hide();
  });

  const reload = (why: string): void => {
    const now = deps.nowMs();
    while (reloads.length > 0 && (reloads[0] ?? 0) <= now - budgetMs) reloads.shift();
    if (reloads.length >= maxReloads) {
      deps.log(
        'error',
        `window: ${why}; not reloading again (${maxReloads} reloads in ${budgetMs / 1000} s)`,
      );
      return;
    }
    reloads.push(now);
    deps.log('warn', `window: ${why}; reloading (${reloads.length} of ${maxReloads})`);
    if (!win.isDestroyed()) win.webContents.reload();
  };

  win.webContents.on('render-process-gone', (_event, details) => {
    // 'clean-exit' happens when the window is being destroyed on quit: nothing to recover.
    if (details.reason === 'clean-exit' || deps.isQuitting()) {
      deps.log('info', `window: renderer exited (${details.reason})`);
      return;
    }
    reload(`renderer gone (${details.reason}, exit code ${details.exitCode})`);
  });

  win.webContents.on('did-fail-load', (_event, code, description, url, isMainFrame) => {
    if (!isMainFrame || code === ERR_ABORTED) return;
    reload(`page failed to load (${code} ${description}) at ${url}`);
  });
}
