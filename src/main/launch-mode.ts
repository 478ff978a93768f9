/**
 * How a launch shows itself (docs/DESKTOP.md "Launch"). Pure: the facts come from index.ts.
 * - A launch the user started shows the window at once: an installer's "Run Verified Updater",
 *   a click in the Start menu or the applications grid must visibly do something (Windows 11
 *   hides a new tray icon among the overflow icons; vanilla GNOME has no tray at all).
 * - A launch at login stays quiet: the login item and the XDG autostart entry pass
 *   `--hidden` (login-item.ts), and macOS reports `wasOpenedAtLogin`.
 * - Where no tray exists (tray-availability.ts) the window is a normal one, with a taskbar
 *   entry; at login it starts minimised, so the app is reachable without a tray icon.
 */

/** The argument the login item and the autostart entry add (docs/DESKTOP.md "Launch"). */
export const HIDDEN_ARGUMENT = '--hidden';

/** 'tray': frameless, next to the tray icon, hidden on blur. 'normal': a framed window. */
export type WindowStyle = 'tray' | 'normal';

/** What the first show of this launch does. */
export type FirstShow = 'show' | 'stay-hidden' | 'minimised';

export interface LaunchFacts {
  /** process.argv of this launch. */
  readonly argv: readonly string[];
  /** app.getLoginItemSettings().wasOpenedAtLogin (macOS); false elsewhere. */
  readonly wasOpenedAtLogin: boolean;
  readonly trayAvailable: boolean;
}

export interface LaunchPlan {
  readonly atLogin: boolean;
  readonly windowStyle: WindowStyle;
  readonly firstShow: FirstShow;
}

/** Was this launch started by the session at login rather than by the user? */
export function launchedAtLogin(facts: Pick<LaunchFacts, 'argv' | 'wasOpenedAtLogin'>): boolean {
  return facts.wasOpenedAtLogin || facts.argv.includes(HIDDEN_ARGUMENT);
}

/** Decides the window style and the first show of this launch. */
export function launchPlan(facts: LaunchFacts): LaunchPlan {
  const atLogin = launchedAtLogin(facts);
  const windowStyle: WindowStyle = facts.trayAvailable ? 'tray' : 'normal';
  let firstShow: FirstShow = 'show';
  if (atLogin) firstShow = facts.trayAvailable ? 'stay-hidden' : 'minimised';
  return { atLogin, windowStyle, firstShow };
}

/** What closing the window (Alt+F4, the title bar's ×) does. */
export type CloseAction = 'hide' | 'minimise' | 'quit';

/**
 * The tray window hides (the tray shows it again). A normal window has no tray to come back
 * from: with "minimise to background" on (the default) it is minimised and the app keeps
 * checking; off, closing it quits the app, as a normal window's × would.
 */
export function closeAction(style: WindowStyle, minimiseToBackground: boolean): CloseAction {
  if (style === 'tray') return 'hide';
  return minimiseToBackground ? 'minimise' : 'quit';
}
