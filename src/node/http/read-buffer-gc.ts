/**
 * Frees the read buffers of a large pull promptly. Why: Node's HTTP parser hands each body
 * slice on as a fresh Buffer (64 KiB on loopback), which is external memory: V8 frees it only
 * at a GC, and a fast transfer allocates almost no JS heap, so no GC comes until external
 * memory has grown by tens of MiB (V8's external allocation soft limit). That garbage was the
 * CLI's peak RSS above 100 MB (docs/UPDATER-PROOF.md §3). A young-generation GC every few MiB
 * written frees it (paced by src/core/transfer/gc-pacer.ts); each one costs well under a millisecond on
 * the CLI's small heap.
 *
 * Opt-in from an entry point only (the CLI): the desktop app keeps V8's own pacing.
 */
import { setFlagsFromString } from 'node:v8';
import { vm } from '../lazy-builtin.js';

type GcFunction = (options?: { type?: 'major' | 'minor' }) => void;

/**
 * Returns a young-generation GC, or undefined when V8 does not offer one. Entry points only:
 * it sets `--expose-gc` for the process (the documented way to reach `gc` at run time is a
 * new context created after the flag is set).
 */
export function exposeMinorGc(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = vm().runInNewContext('gc');
    if (typeof gc !== 'function') return undefined;
    const collect = gc as GcFunction;
    return () => collect({ type: 'minor' });
  } catch {
    return undefined;
  }
}
