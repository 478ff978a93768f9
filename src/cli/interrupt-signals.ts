/**
 * The signals that stop a CLI run as Ctrl-C does (docs/UPDATER.md §7): the run is aborted, the
 * core closed (the lock released, partial downloads kept), and the process exits 128 + the
 * signal's number, as shells report a process that signal killed. SIGTERM (`kill`, `timeout`,
 * a service manager's stop) and SIGHUP (the terminal or the ssh session closed) used to kill
 * it mid-run, leaving the lock for a takeover that a lock from another host never gets (§8).
 */

/** The exit code of a run stopped by SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;

const EXIT_CODES = { SIGINT: EXIT_INTERRUPTED, SIGTERM: 128 + 15, SIGHUP: 128 + 1 } as const;

/** The signals main.ts turns into an abort whose reason is the signal's name. */
export const INTERRUPT_SIGNALS = Object.keys(EXIT_CODES) as readonly (keyof typeof EXIT_CODES)[];

/** The exit code of a run aborted with `reason`: its signal's, else that of SIGINT. */
export function interruptExitCode(reason: unknown): number {
  return typeof reason === 'string' && Object.hasOwn(EXIT_CODES, reason)
    ? EXIT_CODES[reason as keyof typeof EXIT_CODES]
    : EXIT_INTERRUPTED;
}
