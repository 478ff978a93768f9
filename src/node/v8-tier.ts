/**
 * V8's optimising tier around the one CPU-bound loop a run of the CLI may have. `update` runs
 * with `--max-opt=1` (src/cli/heap-flags.ts, docs/UPDATER.md §10.6): TurboFan's compile
 * threads cost 12-14 MiB of a fresh install's peak RSS for code a short run barely uses. The
 * chunker that learns a held blob's chunks when no tree is cached (chunk-store.ts) is the
 * exception: at the baseline tier it runs about ten times slower (110 against 11-17 MiB/s,
 * §10.6), so it gets TurboFan back while it runs. Lowering `--max-opt` also turns TurboFan
 * off by implication, so raising it turns TurboFan on again explicitly.
 */
import { setFlagsFromString } from 'node:v8';

/** The tier the entry point lowered V8 to, or undefined when it keeps V8's defaults. */
let lowered: string | undefined;
/** How many optimised sections run now (they may overlap: one raise, one lower). */
let running = 0;

/** Records that the entry point set `flags` (a `--max-opt=N` among them lowers the tier). */
export function noteTier(flags: string): void {
  lowered = /(?:^|\s)--max-opt=\d+/.exec(flags)?.[0].trim();
}

/** Runs `work` with V8's optimising tier (TurboFan) on, then lowers it again. */
export async function withOptimisingTier<T>(work: () => Promise<T>): Promise<T> {
  if (lowered === undefined) return work();
  if (running++ === 0) setFlagsFromString('--max-opt=999 --turbofan');
  try {
    return await work();
  } finally {
    // Explicitly off again: an explicit --turbofan outranks the implication of --max-opt.
    if (--running === 0) setFlagsFromString(`${lowered} --no-turbofan`);
  }
}
