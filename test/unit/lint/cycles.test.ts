/**
 * Import cycles are refused by `npm run lint:cycles` (dpdm over the sources, docs/ARCHITECTURE.md
 * §Layout). These tests run the same command over a deliberate cycle and over a file without one,
 * so the check is shown to fail when it should.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DPDM = 'node_modules/.bin/dpdm';
const ARGS = ['--no-warning', '--no-tree', '--exit-code', 'circular:1'];

async function dpdm(entry: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(DPDM, [...ARGS, entry], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code?: number; stdout?: string };
    return { code: e.code ?? -1, out: e.stdout ?? '' };
  }
}

describe('the import-cycle check', () => {
  it('fails on a deliberate cycle and names both files', async () => {
    const { code, out } = await dpdm('test/fixtures/cycles/a.ts');
    expect(code).toBe(1);
    expect(out).toMatch(/test\/fixtures\/cycles\/a\.ts -> test\/fixtures\/cycles\/b\.ts/);
  }, 60_000);

  it('passes a file without a cycle', async () => {
    const { code, out } = await dpdm('test/fixtures/cycles/d.ts');
    expect(code).toBe(0);
    expect(out).toMatch(/no circular dependency/);
  }, 60_000);
});
