/**
 * Asks the session bus whether a StatusNotifierWatcher (the Linux tray host) is running, for
 * tray-availability.ts (docs/DESKTOP.md "Launch"). Electron-free: the process runner is
 * injected. `dbus-send` ships with dbus itself on every desktop that has a session bus; any
 * failure (no binary, no bus, a timeout) answers null, "unknown", never an exception.
 */

/** Runs a program without a shell; resolves with its stdout, rejects on failure. */
export type RunProgram = (
  file: string,
  args: readonly string[],
  timeoutMs: number,
) => Promise<string>;

export const WATCHER_BUS_NAME = 'org.kde.StatusNotifierWatcher';
/** Long enough for a loaded session bus, short enough not to delay the first window. */
export const PROBE_TIMEOUT_MS = 1500;

export const PROBE_COMMAND: readonly [string, readonly string[]] = [
  'dbus-send',
  [
    '--session',
    '--print-reply',
    '--dest=org.freedesktop.DBus',
    '/org/freedesktop/DBus',
    'org.freedesktop.DBus.NameHasOwner',
    `string:${WATCHER_BUS_NAME}`,
  ],
];

/** Reads `boolean true` / `boolean false` from dbus-send's printed reply. */
export function parseNameHasOwner(reply: string): boolean | null {
  const match = /\bboolean (true|false)\b/.exec(reply);
  return match === null ? null : match[1] === 'true';
}

export async function probeStatusNotifierWatcher(run: RunProgram): Promise<boolean | null> {
  try {
    return parseNameHasOwner(await run(PROBE_COMMAND[0], PROBE_COMMAND[1], PROBE_TIMEOUT_MS));
  } catch {
    return null;
  }
}
