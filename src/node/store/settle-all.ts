/** Side-by-side work of the commit (commit-journal.ts, commit-gc.ts, pull-staging.ts). */

/**
 * Waits for every one of `work` (none is left running behind a failure) and throws the first
 * failure, in the order given.
 */
export async function allSettled(work: readonly Promise<unknown>[]): Promise<void> {
  for (const done of await Promise.allSettled(work)) {
    if (done.status === 'rejected') throw done.reason;
  }
}
