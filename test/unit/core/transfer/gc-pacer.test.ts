import { describe, expect, it } from 'vitest';
import { GC_EVERY_BYTES, gcPacer } from '#core/transfer/gc-pacer.js';

describe('gcPacer', () => {
  it('collects once per GC_EVERY_BYTES written, not before', () => {
    let runs = 0;
    const written = gcPacer(() => runs++);
    written(GC_EVERY_BYTES - 1);
    expect(runs).toBe(0);
    written(1);
    expect(runs).toBe(1);
    for (let i = 0; i < 16; i++) written(GC_EVERY_BYTES / 4);
    expect(runs).toBe(5);
  });

  it('paces on a custom interval', () => {
    let runs = 0;
    const written = gcPacer(() => runs++, 1000);
    for (let i = 0; i < 10; i++) written(256);
    expect(runs).toBe(2);
  });
});
