/**
 * Every download slot waiting to retry at once (docs/UPDATER.md §5, §8 "Many small artifacts":
 * 4 slots per connection over pipelined connections) puts no more listeners on one abort signal
 * than node's leak warning allows: the waits listen on their slot's group, not on the pull's
 * signal (src/core/pull.ts).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '#core/limits.js';
import type { Fetcher, Timers } from '#core/ports.js';
import { pullBlobs, type PullContext } from '#core/transfer/pull.js';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import { silentLogger } from '#core/ports.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { MemoryStore, sha256Hex, text } from '#test/fakes.js';

/** Real timers, with the retry's short waits cut to a few ms (the stall watch's stay as they are). */
const quickTimers: Timers = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs < 20_000 ? 5 : delayMs),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

describe('pullBlobs retrying on every slot at once', () => {
  it('raises no MaxListenersExceededWarning', async () => {
    const contents = Array.from({ length: 40 }, (_, i) => text(`small artifact ${i}`));
    const todo: ManifestArtifact[] = contents.map((c, i) => {
      const sha256 = sha256Hex(c);
      return { name: `s${i}`, size: c.length, sha256, url: `api/updates/artifacts/${sha256}` };
    });
    const bySha = new Map(contents.map((c) => [sha256Hex(c), c]));
    const failedOnce = new Set<string>();
    const fetcher: Fetcher = {
      // The first GET of each blob fails as a dropped connection does: a transient error.
      get(url) {
        if (!failedOnce.has(url)) {
          failedOnce.add(url);
          return Promise.reject(new Error('socket hang up'));
        }
        const body = bySha.get(url.split('/').pop() ?? '') ?? new Uint8Array();
        return Promise.resolve({
          status: 200,
          header: (name: string) => (name === 'content-length' ? String(body.length) : undefined),
          body: (async function* () {
            await Promise.resolve();
            yield body;
          })(),
          discard: () => undefined,
        });
      },
      pipelines: () => true,
    };
    const store = new MemoryStore();
    const ctx: PullContext = {
      http: {
        fetcher,
        clock: { nowMs: () => Date.now() },
        timers: quickTimers,
        limits: DEFAULT_LIMITS,
        endpoint: parseEndpoint('http://updates.test', 'mk'),
        userAgent: 'test',
      },
      store,
      random: () => 0.5,
      logger: silentLogger,
      signal: new AbortController().signal,
    };
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      await pullBlobs(ctx, todo, () => undefined);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(store.blobs.size).toBe(40);
    expect(failedOnce.size).toBe(40);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
