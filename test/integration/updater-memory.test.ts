/**
 * Memory per artifact must not grow (docs/UPDATER-PROOF.md §3): a run that pulls 2,000 small
 * artifacts may leave nothing behind per artifact. The heap is measured after a full GC, with
 * one updater open across two updates of 2,000 new artifacts each, so the second run's growth
 * is what each pull left reachable (a combined AbortSignal per request with got's listener on
 * it kept ~33 KiB per artifact alive: ~66 MB here).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { startHostileServer } from '#test/hostile-server.js';
import { bytesOf, openUpdater, tempDirs } from '#test/updater-harness.js';

const COUNT = 2_000;
/** Generous: 4 KiB per artifact, an eighth of what the leak kept. */
const MAX_GROWTH_BYTES = COUNT * 4 * 1024;

const dirs = tempDirs();

afterAll(async () => {
  await dirs.cleanup();
});

function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return gc;
}

function release(version: string, seed: number) {
  return {
    version,
    files: Array.from({ length: COUNT }, (_, i) => ({
      name: `f${String(i).padStart(4, '0')}.bin`,
      content: bytesOf(512, seed * 100_000 + i + 1),
    })),
  };
}

describe('memory across many small pulls', () => {
  it(`retains under ${MAX_GROWTH_BYTES / 1024 / 1024} MiB of heap for ${COUNT} more artifacts`, async () => {
    const gc = fullGc();
    const server = await startHostileServer();
    const dir = await dirs.make('qa-memory-');
    const updater = await openUpdater(server, dir, { limits: { stallTimeoutMs: 30_000 } });
    try {
      await server.publish(release('1.0.0', 1));
      expect((await updater.update()).outcome).toBe('applied');
      gc();
      const before = process.memoryUsage().heapUsed;

      await server.publish(release('2.0.0', 2));
      expect((await updater.update()).outcome).toBe('applied');
      gc();
      const growth = process.memoryUsage().heapUsed - before;
      expect(growth, `heap grew by ${growth} bytes over ${COUNT} pulls`).toBeLessThan(
        MAX_GROWTH_BYTES,
      );
    } finally {
      await updater.close();
      await server.close();
    }
  }, 120_000);
});
