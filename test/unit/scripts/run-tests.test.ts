/**
 * `npm test` (scripts/run-tests.mjs, README.md §Tests and benchmarks) ends with one summary line
 * for all suites together, after a line per skipped test with its reason; a failed phase is
 * named and fails the run without hiding the others' results.
 */
import { writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { summarize, summaryLines } from '#scripts/ci-summary.mjs';
import { PHASES, runTests } from '#scripts/run-tests.mjs';

const VITEST = {
  numPassedTests: 10,
  numFailedTests: 1,
  numPendingTests: 1,
  numTodoTests: 0,
  testResults: [{ assertionResults: [{ status: 'skipped', fullName: 'a linux-only test' }] }],
};
const PLAYWRIGHT = {
  stats: { expected: 5, unexpected: 0, flaky: 0, skipped: 1 },
  suites: [
    {
      title: 'electron-smoke.spec.ts',
      specs: [
        {
          title: 'Electron smoke',
          tests: [
            {
              status: 'skipped',
              annotations: [{ type: 'skip', description: 'Electron runtime not installed' }],
            },
          ],
        },
      ],
    },
  ],
};

describe('the summary', () => {
  it('counts both suites together and gives each skip its reason', () => {
    const summary = summarize({ vitest: VITEST, playwright: PLAYWRIGHT });
    expect(summaryLines(summary)).toEqual([
      'skipped: a linux-only test',
      'skipped: electron-smoke.spec.ts › Electron smoke: Electron runtime not installed',
      '15 passed, 1 failed, 2 skipped',
    ]);
  });

  it('says 0 skipped too: the line has one shape', () => {
    expect(summaryLines(summarize({ vitest: { numPassedTests: 3 } }))).toEqual([
      '3 passed, 0 failed, 0 skipped',
    ]);
  });
});

describe('runTests', () => {
  const phases = [
    { name: 'set-up', argv: ['setup'], required: true },
    { name: 'lint', argv: ['lint'] },
    { name: 'vitest', argv: ['vitest'] },
  ];
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'run-tests-'));
    await mkdir(join(dir, 'test-results'));
    // A report left by an earlier run: it must not be counted.
    await writeFile(join(dir, 'test-results/playwright.json'), JSON.stringify(PLAYWRIGHT));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs every phase after a failed lint, names it, and ends with the summary line', () => {
    const lines: string[] = [];
    const ran: string[] = [];
    const code = runTests({
      phases,
      dir,
      log: (line) => lines.push(line),
      run: (command: string) => {
        ran.push(command);
        if (command === 'vitest') {
          writeFileSync(join(dir, 'test-results/vitest.json'), JSON.stringify(VITEST));
        }
        return { status: command === 'lint' ? 1 : 0 };
      },
    });
    expect(ran).toEqual(['setup', 'lint', 'vitest']);
    expect(code).toBe(1);
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^npm test: set-up done in \d+\.\d s$/),
      expect.stringMatching(/^npm test: lint FAILED in /),
      expect.stringMatching(/^npm test: vitest done in /),
    ]);
    expect(lines.slice(3)).toEqual([
      'npm test: failed: lint',
      'skipped: a linux-only test',
      '10 passed, 1 failed, 1 skipped',
    ]);
  });

  it('stops after a failed set-up', () => {
    const ran: string[] = [];
    const code = runTests({
      phases,
      dir,
      log: () => undefined,
      run: (command: string) => {
        ran.push(command);
        return { status: command === 'setup' ? 1 : 0 };
      },
    });
    expect(ran).toEqual(['setup']);
    expect(code).toBe(1);
  });

  it('the real phases: set-up, lint, type-check, vitest, Playwright', () => {
    expect(PHASES.map((p) => p.name)).toEqual([
      'set-up',
      'lint',
      'type-check',
      'vitest',
      'playwright',
    ]);
  });
});
