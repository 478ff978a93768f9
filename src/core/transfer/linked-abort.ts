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

/**
 * One link reused by the requests of one download slot, one after another, instead of a new
 * controller per request (at 10,000 small artifacts the controllers and their listeners were a
 * measurable share of the run: docs/UPDATER.md §8, "Many small artifacts"). A request that must
 * be cut (a stall) aborts the link, and the next request of the slot gets a fresh one.
 */
export class AbortLane {
  private link: LinkedAbort | undefined;

  constructor(private readonly parent: AbortSignal) {}

  /** The slot's link: the current one unless it was aborted. */
  take(): LinkedAbort {
    if (this.link === undefined || this.link.signal.aborted) {
      this.link?.dispose();
      this.link = linkedAbort(this.parent);
    }
    return this.link;
  }

  /** Lets go of the parent; idempotent. */
  dispose(): void {
    this.link?.dispose();
    this.link = undefined;
  }
}
