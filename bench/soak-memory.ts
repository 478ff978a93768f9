/**
 * The server's memory in bench/server-soak.ts: its RSS sampled from /proc, and node's
 * `--trace-gc` lines (SOAK_GC_LOG) read for the V8 heap left after each full collection
 * (Mark-Compact) of the process's main isolate. RSS is a sawtooth (the heap grows between full
 * collections, and V8 keeps pages it has committed); the heap after a full collection is what
 * stays live, so a leak shows there as a rising series (docs/SERVER.md §Soak).
 */
import { readFile } from 'node:fs/promises';

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

/** Least-squares slope of (seconds, MiB) points, in MiB per minute. */
function slopePerMin(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) / 1024;
}

/** The RSS of `pid` every `everyS` seconds from now, as [seconds, MiB] points. */
export function sampleRss(
  pid: number,
  everyS: number,
): { points: [number, number][]; stop(): void } {
  const t0 = performance.now();
  const points: [number, number][] = [];
  const sample = (): void => {
    const at = Math.round((performance.now() - t0) / 100) / 10;
    void rssMiB(pid).then((mib) => points.push([at, Math.round(mib * 10) / 10]));
  };
  sample();
  const timer = setInterval(sample, everyS * 1000);
  return { points, stop: () => clearInterval(timer) };
}

/** The series' summary: start, peak, end, and the slope over its last half. */
export function rssSummary(points: readonly [number, number][]): Record<string, number> {
  const mib = points.map(([, m]) => m);
  return {
    start: mib[0] ?? 0,
    max: Math.max(...mib),
    end: mib.at(-1) ?? 0,
    slope_last_half_mib_per_min: Number(slopePerMin(points.slice(points.length >> 1)).toFixed(2)),
  };
}

/** The heap after each full collection in `lines`, with its slope over the run (MB per minute). */
export function gcSummary(lines: readonly string[]): Record<string, unknown> {
  const points = heapAfterFullGc(lines);
  return {
    series: points.map(([t, mb]) => `${t.toFixed(0)}:${mb}`).join(' '),
    slope_mb_per_min: Number(slopePerMin(points.slice(1)).toFixed(2)),
  };
}
