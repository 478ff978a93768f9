/**
 * An AbortController that also aborts when a parent signal does, and lets go of the parent
 * when its work is done. Why not `AbortSignal.any`: on Node 20 a combined signal that has an
 * abort listener stays reachable from its sources until they abort, so one per request (and
 * got never removes its listener after a successful read) grew the heap by about 33 KiB per
 * artifact for the whole run (docs/UPDATER-PROOF.md §3). Here the link is one listener on the
 * parent, removed by `dispose()`.
 */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  abort(): void;
  /** Removes the listener on the parent; idempotent. */
  dispose(): void;
}

export function linkedAbort(parent: AbortSignal): LinkedAbort {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  if (parent.aborted) abort();
  else parent.addEventListener('abort', abort, { once: true });
  return {
    signal: controller.signal,
    abort,
    dispose: () => parent.removeEventListener('abort', abort),
  };
}
