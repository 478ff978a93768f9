/**
 * The tray window's lifecycle without traps (docs/DESKTOP.md "Lifecycle"), Electron-free so
 * it is unit-tested with plain fakes:
 * - closing (Alt+F4, Cmd+W, the window manager) hides the window instead of destroying it,
 *   so the tray can show it again; only a real quit lets it close;
 * - a renderer that crashes or is killed (`render-process-gone`) and a page that fails to
 *   load (`did-fail-load`) are logged and the page is reloaded, within the budget of
 *   src/app/renderer-recovery.ts, so a page that crashes on load cannot spin the CPU forever;
 * - past that budget the window shows the gave-up page (src/app/gave-up-page.ts: a message
 *   and a Reload button) instead of staying blank; its Reload loads our page again on a
 *   fresh budget.
 */
import { gaveUpUrl, isReloadRequest } from '#app/gave-up-page.js';
import { createRendererRecovery, type RecoveryDecision } from '#app/renderer-recovery.js';
import type { CloseAction } from './launch-mode.js';

/** The slice of BrowserWindow this module uses. */
export interface LifecycleWindow {
  on(event: 'close', listener: (event: { preventDefault(): void }) => void): unknown;
  hide(): void;
  minimize(): void;
  isDestroyed(): boolean;
  loadURL(url: string): Promise<void>;
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
    on(
      event: 'will-navigate',
      listener: (event: { readonly url: string; preventDefault(): void }) => void,
    ): unknown;
    reload(): void;
  };
}

export interface WindowLifecycleDeps {
  /** True once the app is quitting: then the window may really close. */
  readonly isQuitting: () => boolean;
  readonly nowMs: () => number;
  readonly log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** Our page (APP_ENTRY_URL), loaded again when the user presses Reload on the gave-up page. */
  readonly entryUrl: string;
  /** Reloads allowed within `reloadBudgetMs` (default 3 in 60 s, renderer-recovery.ts). */
  readonly maxReloads?: number;
  readonly reloadBudgetMs?: number;
  /**
   * What closing does (launch-mode.ts closeAction); 'hide' when absent. 'quit' calls `quit`,
   * which goes through the app's ordered shutdown.
   */
  readonly closeAction?: () => CloseAction;
  readonly quit?: () => void;
}

/** Chromium's net::ERR_ABORTED: a load replaced by another one, not a failure. */
const ERR_ABORTED = -3;

/** Wires close, render-process-gone, did-fail-load and the gave-up page's Reload on `win`. */
export function attachWindowLifecycle(win: LifecycleWindow, deps: WindowLifecycleDeps): void {
  win.on('close', (event) => {
    if (deps.isQuitting()) return;
    const action = deps.closeAction?.() ?? 'hide';
    event.preventDefault();
    if (action === 'minimise') win.minimize();
    else if (action === 'quit') deps.quit?.();
    else win.hide();
  });
  attachRecovery(win, deps);
}

function describe(decision: RecoveryDecision): string {
  switch (decision.action) {
    case 'reload':
      return `reloading (${decision.attempt} of ${decision.maxReloads})`;
    case 'give-up':
      return `not reloading again (${decision.maxReloads} reloads in ${decision.windowMs / 1000} s); showing the gave-up page`;
    case 'wait':
      return 'the gave-up page was just shown; waiting for Reload';
  }
}

function attachRecovery(win: LifecycleWindow, deps: WindowLifecycleDeps): void {
  const recovery = createRendererRecovery({
    nowMs: deps.nowMs,
    ...(deps.maxReloads === undefined ? {} : { maxReloads: deps.maxReloads }),
    ...(deps.reloadBudgetMs === undefined ? {} : { windowMs: deps.reloadBudgetMs }),
  });
  // A failed load is also reported by did-fail-load, which is where it is handled.
  const load = (url: string): void => void win.loadURL(url).catch(() => undefined);

  const failed = (why: string): void => {
    const decision = recovery.failed();
    deps.log(
      decision.action === 'reload' ? 'warn' : 'error',
      `window: ${why}; ${describe(decision)}`,
    );
    if (win.isDestroyed()) return;
    if (decision.action === 'reload') win.webContents.reload();
    else if (decision.action === 'give-up') load(gaveUpUrl());
  };

  win.webContents.on('render-process-gone', (_event, details) => {
    // 'clean-exit' happens when the window is being destroyed on quit: nothing to recover.
    if (details.reason === 'clean-exit' || deps.isQuitting()) {
      deps.log('info', `window: renderer exited (${details.reason})`);
      return;
    }
    failed(`renderer gone (${details.reason}, exit code ${details.exitCode})`);
  });

  win.webContents.on('did-fail-load', (_event, code, description, url, isMainFrame) => {
    if (!isMainFrame || code === ERR_ABORTED) return;
    failed(`page failed to load (${code} ${description}) at ${url}`);
  });

  // Navigation stays denied (main-window.ts); the one navigation read here is the gave-up
  // page's Reload, and only while that page is what the window shows.
  win.webContents.on('will-navigate', (event) => {
    event.preventDefault();
    if (!recovery.gaveUp() || !isReloadRequest(event.url) || win.isDestroyed()) return;
    recovery.reset();
    deps.log('info', 'window: Reload pressed on the gave-up page; loading the window again');
    load(deps.entryUrl);
  });
}
