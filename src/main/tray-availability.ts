/**
 * Whether this desktop shows a tray icon at all (docs/DESKTOP.md "Launch"). Pure; the facts
 * come from the environment and status-notifier-probe.ts.
 *
 * The heuristic, and why:
 * - macOS (menu bar extras) and Windows (notification area) always have one.
 * - On Linux, Electron's Tray is a StatusNotifierItem, shown by whoever owns the session bus
 *   name `org.kde.StatusNotifierWatcher` (KDE Plasma, Ubuntu's GNOME with its AppIndicator
 *   extension, Cinnamon, XFCE with its plugin...). If that name has an owner, there is a tray.
 * - GNOME Shell (XDG_CURRENT_DESKTOP lists GNOME, e.g. "GNOME", "ubuntu:GNOME",
 *   "GNOME-Classic:GNOME") has had no tray of its own since 3.26, and no XEmbed fallback:
 *   there, no watcher (or no way to ask the bus) means no tray.
 * - Other desktops without a watcher usually keep an XEmbed tray, which Electron falls back
 *   to, so they are trusted to have one.
 * A wrong "no tray" costs a normal window; a wrong "tray" would cost an invisible app, so
 * GNOME with an unanswered probe counts as no tray.
 */

export interface DesktopFacts {
  readonly platform: NodeJS.Platform;
  /** XDG_CURRENT_DESKTOP, colon-separated (Desktop Entry Specification, "OnlyShowIn"). */
  readonly xdgCurrentDesktop: string | undefined;
  /** Whether org.kde.StatusNotifierWatcher has an owner; null when the bus did not answer. */
  readonly statusNotifierWatcher: boolean | null;
}

/** True when XDG_CURRENT_DESKTOP names GNOME among its entries. */
export function isGnomeDesktop(xdgCurrentDesktop: string | undefined): boolean {
  if (xdgCurrentDesktop === undefined) return false;
  return xdgCurrentDesktop
    .split(':')
    .some((name) => name.trim().toLowerCase() === 'gnome' || /^gnome-/i.test(name.trim()));
}

/** Whether a probe is worth running: only a GNOME session on Linux needs one. */
export function needsWatcherProbe(
  platform: NodeJS.Platform,
  xdgCurrentDesktop: string | undefined,
): boolean {
  return platform === 'linux' && isGnomeDesktop(xdgCurrentDesktop);
}

export function trayAvailable(facts: DesktopFacts): boolean {
  if (facts.platform !== 'linux') return true;
  if (facts.statusNotifierWatcher === true) return true;
  return !isGnomeDesktop(facts.xdgCurrentDesktop);
}
