/**
 * V8 heap sizing and tiering for the CLI's short runs (docs/UPDATER.md §8, Peak RSS; §3, No-op
 * runs). The CLI runs as `node updater.mjs`, so V8 flags cannot come from the command line;
 * these three are ones V8 reads when it sizes a space or decides to optimise a function, not
 * at start, so setting them from the entry point takes effect:
 *
 * - `--semi-space-growth-factor=1`: the young generation stays at its initial size instead of
 *   doubling (docs/UPDATER.md §10.6). A pull allocates little that lives, and the garbage of each
 *   artifact (request, response, promises) is gone by the next scavenge; a grown young
 *   generation was RSS held for nothing.
 * - `--heap-growing-percent=50`: after a full GC the old generation may grow by half of what
 *   lived, not up to four times it, so objects that outlived two scavenges while in flight
 *   (many small downloads) are collected soon rather than piling up (docs/UPDATER.md §10.6).
 * - `--max-opt=1`: no function is optimised past Sparkplug, V8's baseline tier. TurboFan
 *   compiles on V8's worker threads, and each of them then kept its own malloc arena of about
 *   2.5 MB resident, plus the optimiser's code pages of the node binary: 12-14 MiB of a fresh
 *   10,000-artifact install's peak RSS, for code a run of a few seconds barely gets to use; it
 *   cost more CPU than it saved there (docs/UPDATER.md §10.6).
 *
 * Only `update` pulls, so only `update` gets them: the other commands (a `check`, `status`,
 * `verify`, the long-running `serve`) keep V8's defaults, whose large young generation lets a
 * short run end before most of what it parsed was ever copied by a scavenge. The desktop app
 * never runs this.
 */
import { setFlagsFromString } from 'node:v8';
import { noteTier } from '#node/v8-tier.js';

export const CLI_HEAP_FLAGS = '--semi-space-growth-factor=1 --heap-growing-percent=50 --max-opt=1';

/** The flags for `command` (argv[0]), or undefined when V8's defaults stay. */
export function heapFlagsFor(command: string | undefined): string | undefined {
  return command === 'update' ? CLI_HEAP_FLAGS : undefined;
}

/** Sets the heap flags for `command`; call it first thing in the entry point. */
export function tuneHeap(command: string | undefined): void {
  const flags = heapFlagsFor(command);
  if (flags === undefined) return;
  setFlagsFromString(flags);
  // The chunker raises the tier again while it runs (src/node/v8-tier.ts).
  noteTier(flags);
}
