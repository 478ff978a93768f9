/**
 * Notices that the process which started the server is gone. npm (`npm run server`, `npx`)
 * passes SIGTERM and SIGINT only to the shell it runs the command in, and a shell that dies
 * does not pass them on, so a harness that kills npm would otherwise leave the server running,
 * reparented, its port bound and its temporary data directory on disk (docs/SERVER.md §Run it).
 * Polls the parent pid: when it changes, the parent has exited and we were reparented.
 */

export const PARENT_POLL_MS = 250;

export interface ParentWatchDeps {
  /** The current parent pid (`process.ppid` is read live). */
  readonly ppid: () => number;
  readonly setInterval: (fn: () => void, ms: number) => { unref(): unknown };
  readonly clearInterval: (timer: { unref(): unknown }) => void;
}

const REAL: ParentWatchDeps = {
  ppid: () => process.ppid,
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (timer) => clearInterval(timer as ReturnType<typeof setInterval>),
};

/** Calls `onGone` once when the parent exits; returns a function that stops watching. */
export function watchParent(onGone: () => void, deps: ParentWatchDeps = REAL): () => void {
  const parent = deps.ppid();
  const timer = deps.setInterval(() => {
    if (deps.ppid() === parent) return;
    deps.clearInterval(timer);
    onGone();
  }, PARENT_POLL_MS);
  timer.unref(); // never the reason the process stays alive
  return () => deps.clearInterval(timer);
}

/** True when npm started this process (it sets npm_lifecycle_event for `run` and `exec`). */
export function startedByNpm(env: Readonly<Record<string, string | undefined>>): boolean {
  return env['npm_lifecycle_event'] !== undefined;
}
