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

/**
 * Whether a hot function was optimised (V8's status bit 4) after up to `budgetMs` of calls, with
 * `flags` set at run time; the calls stop as soon as it is.
 */
function optimisedAfterHotCalls(flags: string, budgetMs: number): boolean {
  const script = `
    const v8 = require('node:v8');
    if (${JSON.stringify(flags)} !== '') v8.setFlagsFromString(${JSON.stringify(flags)});
    function hot(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
    const optimised = () => (%GetOptimizationStatus(hot) & 16) !== 0;
    const until = Date.now() + ${budgetMs};
    let sum = 0;
    const turn = () => {
      for (let k = 0; k < 200; k++) sum += hot(1000);
      if (optimised() || Date.now() > until) process.stdout.write(String(optimised() && sum > 0));
      else setImmediate(turn);
    };
    turn();`;
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '-e', script], {
    encoding: 'utf8',
  });
  expect(run.status).toBe(0);
  return run.stdout === 'true';
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

  it('keep every function below the optimising tier when set at run time', () => {
    expect(optimisedAfterHotCalls('', 5000)).toBe(true);
    expect(optimisedAfterHotCalls(CLI_HEAP_FLAGS, 1000)).toBe(false);
  });
});
