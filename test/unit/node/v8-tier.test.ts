import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI_HEAP_FLAGS } from '#cli/heap-flags.js';

const MODULE = pathToFileURL(resolve(import.meta.dirname, '../../../src/node/v8-tier.ts')).href;

/**
 * In a fresh node with the CLI's flags set at run time: whether a hot function called inside
 * `withOptimisingTier` gets optimised (V8's status bit 4), and whether one called after it does.
 */
function tiers(noted: boolean): { inside: boolean; after: boolean } {
  const script = `
    const v8 = await import('node:v8');
    const tier = await import(${JSON.stringify(MODULE)});
    v8.setFlagsFromString(${JSON.stringify(CLI_HEAP_FLAGS)});
    if (${noted}) tier.noteTier(${JSON.stringify(CLI_HEAP_FLAGS)});
    // Two functions of their own source (closures of one source would share optimised code).
    const first = function hot(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; };
    const second = function warm(n) { let s = 1; for (let i = 0; i < n; i++) s = (s + i * 11) % 999983; return s; };
    const optimisedWithin = async (fn, ms) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        for (let k = 0; k < 200; k++) fn(1000);
        if ((%GetOptimizationStatus(fn) & 16) !== 0) return true;
        await new Promise((r) => setImmediate(r));
      }
      return false;
    };
    const inside = await tier.withOptimisingTier(() => optimisedWithin(first, ${noted ? 5000 : 1000}));
    const after = await optimisedWithin(second, 1000);
    process.stdout.write(JSON.stringify({ inside, after }));`;
  const run = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
    { encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { inside: boolean; after: boolean };
}

describe('the optimising tier around a CPU-bound loop', () => {
  it('is on inside the section and lowered again after it, once the entry point noted it', () => {
    expect(tiers(true)).toEqual({ inside: true, after: false });
  });

  it('stays off when the lowered tier was not noted (nothing raises it)', () => {
    expect(tiers(false)).toEqual({ inside: false, after: false });
  });
});
