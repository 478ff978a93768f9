import { describe, expect, it } from 'vitest';
import { exposeMinorGc } from '#node/http/read-buffer-gc.js';

describe('exposeMinorGc', () => {
  it('exposes a young-generation GC that frees dropped read-sized buffers', async () => {
    const collect = exposeMinorGc();
    expect(collect).toBeTypeOf('function');
    const MiB = 1024 * 1024;
    const arrayBuffers = (): number => process.memoryUsage().arrayBuffers;
    const before = arrayBuffers();
    // 8 MiB of 64 KiB chunks, dropped at once, as a pull does with each body chunk.
    let sum = 0;
    for (let i = 0; i < 128; i++) sum += new Uint8Array(64 * 1024).fill(1)[0] ?? 0;
    expect(sum).toBe(128);
    expect(arrayBuffers()).toBeGreaterThanOrEqual(before + 6 * MiB);
    // The array-buffer sweeper runs concurrently: yield and allow a few collections.
    for (let i = 0; i < 4 && arrayBuffers() > before + 2 * MiB; i++) {
      collect?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(arrayBuffers()).toBeLessThan(before + 2 * MiB);
  });
});
