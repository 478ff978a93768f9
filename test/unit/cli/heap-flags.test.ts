import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_HEAP_FLAGS, heapFlagsFor } from '#cli/heap-flags.js';

/** New-space size (bytes) after allocating ~40 MB of live objects, with `flags` set at run time. */
function newSpaceAfterAllocating(flags: string): number {
  const script = `
    const v8 = require('node:v8');
    if (${JSON.stringify(flags)} !== '') v8.setFlagsFromString(${JSON.stringify(flags)});
    const keep = [];
    for (let i = 0; i < 300000; i++) keep.push({ a: i, b: 'x' + i, c: [i] });
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(space.space_size));`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  return Number(run.stdout);
}

describe('heap flags of the CLI', () => {
  it('apply to update, the one command that pulls', () => {
    expect(heapFlagsFor('update')).toBe(CLI_HEAP_FLAGS);
    for (const other of ['check', 'status', 'verify', 'serve', undefined]) {
      expect(heapFlagsFor(other)).toBeUndefined();
    }
  });

  it('keep the young generation at its initial size when set at run time', () => {
    const tuned = newSpaceAfterAllocating(CLI_HEAP_FLAGS);
    const plain = newSpaceAfterAllocating('');
    expect(tuned).toBeLessThan(8 * 1024 * 1024);
    expect(plain).toBeGreaterThan(tuned);
  });
});
