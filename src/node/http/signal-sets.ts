/**
 * The requests in flight under each abort signal, ended together when it aborts. Why not
 * node's `signal` option or a listener per request: at 10,000 small artifacts a listener and an
 * end-of-stream watch per request cost more than the request; here a signal gets one listener
 * for all its requests (the core reuses one signal per download slot: http-get.ts `AbortLane`).
 * Both fetch paths use it: node:http's requests (http-fetcher.ts) and pipelined ones
 * (pipeline-pool.ts).
 */
export class SignalSets<T> {
  private readonly sets = new WeakMap<AbortSignal, Set<T>>();

  /** `end` is called for each item still in the set when its signal aborts. */
  constructor(private readonly end: (item: T) => void) {}

  /** The set of `signal`, created (with its one abort listener) at first use. */
  of(signal: AbortSignal): Set<T> {
    let set = this.sets.get(signal);
    if (set === undefined) {
      const items = new Set<T>();
      set = items;
      this.sets.set(signal, items);
      signal.addEventListener(
        'abort',
        () => {
          // A copy: ending an item may remove it from the set.
          for (const item of [...items]) this.end(item);
          items.clear();
        },
        { once: true },
      );
    }
    return set;
  }
}
