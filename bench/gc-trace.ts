/**
 * Reads node's `--trace-gc` lines (bench/server-soak.ts SOAK_GC_LOG): the V8 heap left after
 * each full collection (Mark-Compact) of the process's main isolate. RSS is a sawtooth (the
 * heap grows between full collections, and V8 keeps pages it has committed); the heap after a
 * full collection is what stays live, so a leak shows there as a rising series.
 */

/** One full collection: seconds since the isolate started, and the heap after it in MB. */
export type AfterCollection = readonly [number, number];

const MARK_COMPACT =
  /\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: Mark-Compact[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \(/;

/**
 * The heap after each Mark-Compact of the isolate with the largest heap (the main thread's;
 * a loader worker, such as tsx's, is another isolate with a small heap).
 */
export function heapAfterFullGc(lines: readonly string[]): AfterCollection[] {
  const byIsolate = new Map<string, AfterCollection[]>();
  for (const line of lines) {
    const m = MARK_COMPACT.exec(line);
    if (m === null) continue;
    const [, isolate = '', ms = '0', after = '0'] = m;
    let list = byIsolate.get(isolate);
    if (list === undefined) byIsolate.set(isolate, (list = []));
    list.push([Number(ms) / 1000, Number(after)]);
  }
  let best: AfterCollection[] = [];
  let peak = -1;
  for (const list of byIsolate.values()) {
    const max = Math.max(...list.map(([, mb]) => mb));
    if (max > peak) [best, peak] = [list, max];
  }
  return best;
}
