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
import { isNodeWarning, PHASES, runPhase, runTests, type RunPhase } from '#scripts/run-tests.mjs';

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
    { name: 'vitest', argv: ['vitest'], report: 'vitest' as const },
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

  /** A fake run: each command's exit status, its output lines, and the report vitest writes. */
  function fakeRun(
    ran: string[],
    { statuses = {}, output = {}, vitest = VITEST }: FakeOptions = {},
  ): RunPhase {
    return (command, _args, { onLine }) => {
      ran.push(command);
      for (const line of output[command] ?? []) onLine(line);
      if (command === 'vitest') {
        writeFileSync(join(dir, 'test-results/vitest.json'), JSON.stringify(vitest));
      }
      return Promise.resolve({ status: statuses[command] ?? 0 });
    };
  }
  interface FakeOptions {
    statuses?: Record<string, number>;
    output?: Record<string, string[]>;
    vitest?: object;
  }

  it('runs every phase after a failed lint, names it, and counts it in the summary line', async () => {
    const lines: string[] = [];
    const ran: string[] = [];
    const code = await runTests({
      phases,
      dir,
      log: (line) => lines.push(line),
      run: fakeRun(ran, { statuses: { lint: 1, vitest: 1 } }),
    });
    expect(ran).toEqual(['setup', 'lint', 'vitest']);
    expect(code).toBe(1);
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^npm test: set-up done in \d+\.\d s$/),
      expect.stringMatching(/^npm test: lint FAILED in /),
      expect.stringMatching(/^npm test: vitest FAILED in /),
    ]);
    // The lint is one failure; vitest's failure is already its failed test, not counted twice.
    expect(lines.slice(3)).toEqual([
      'npm test: failed: lint, vitest',
      'skipped: a linux-only test',
      '10 passed, 2 failed, 1 skipped',
    ]);
  });

  it('a failed type-check alone still makes the line say failed, and the exit status 1', async () => {
    const lines: string[] = [];
    const green = { ...VITEST, numFailedTests: 0 };
    const code = await runTests({
      phases: [{ name: 'type-check', argv: ['tsc'] }, ...phases.slice(2)],
      dir,
      log: (line) => lines.push(line),
      run: fakeRun([], { statuses: { tsc: 2 }, vitest: green }),
    });
    expect(code).toBe(1);
    expect(lines.at(-1)).toBe('10 passed, 1 failed, 1 skipped');
  });

  it('a test phase that fails with every test green (an unhandled error) counts one failure', async () => {
    const lines: string[] = [];
    const green = { ...VITEST, numFailedTests: 0 };
    const code = await runTests({
      phases,
      dir,
      log: (line) => lines.push(line),
      run: fakeRun([], { statuses: { vitest: 1 }, vitest: green }),
    });
    expect(code).toBe(1);
    expect(lines.at(-1)).toBe('10 passed, 1 failed, 1 skipped');
  });

  it('stops after a failed set-up', async () => {
    const ran: string[] = [];
    const code = await runTests({
      phases,
      dir,
      log: () => undefined,
      run: fakeRun(ran, { statuses: { setup: 1 } }),
    });
    expect(ran).toEqual(['setup']);
    expect(code).toBe(1);
  });

  it('fails a green run whose output has a Node warning line, and quotes the line', async () => {
    const lines: string[] = [];
    const warning =
      '(node:4242) MaxListenersExceededWarning: Possible EventTarget memory leak detected.';
    const code = await runTests({
      phases,
      dir,
      log: (line) => lines.push(line),
      run: fakeRun([], {
        output: { lint: ['clean'], vitest: ['\u001b[31m' + warning] },
        vitest: { ...VITEST, numFailedTests: 0 },
      }),
    });
    expect(code).toBe(1);
    expect(lines.slice(3)).toEqual([
      'npm test: 1 Node warning line(s) in the output; fix each at its source:',
      `  ${warning}`,
      'npm test: failed: Node warnings',
      'skipped: a linux-only test',
      '10 passed, 1 failed, 1 skipped',
    ]);
  });

  it('a clean run exits 0', async () => {
    const code = await runTests({
      phases,
      dir,
      log: () => undefined,
      run: fakeRun([], { vitest: { ...VITEST, numFailedTests: 0 } }),
    });
    expect(code).toBe(0);
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

describe('isNodeWarning', () => {
  it.each([
    '(node:19) Warning: Closing file descriptor 19 on garbage collection',
    '(node:19) [DEP0137] DeprecationWarning: Closing a FileHandle object on garbage collection is deprecated.',
    '(node:7) MaxListenersExceededWarning: Possible EventTarget memory leak detected. 11 abort listeners added to [AbortSignal].',
    '(node:7) ExperimentalWarning: VM Modules is an experimental feature',
    '  (node:7) Warning: indented by a runner',
  ])('knows %s', (line) => {
    expect(isNodeWarning(line)).toBe(true);
  });

  it.each([
    'npm warn EBADENGINE Unsupported engine',
    'a test named "(node:7) Warning: quoted" is not at the start',
    '(node:abc) Warning: not a pid',
    'Warning: a runner message of its own',
  ])('leaves %s alone', (line) => {
    expect(isNodeWarning(line)).toBe(false);
  });
});

describe('runPhase', () => {
  it('passes the output through, hands on each line (even one split across chunks), and gives the exit status', async () => {
    const lines: string[] = [];
    const passed: string[] = [];
    const sink = { write: (chunk: Buffer) => passed.push(chunk.toString('utf8')) };
    const script =
      "process.stdout.write('a\\nb'); setTimeout(() => { process.stdout.write('c\\n'); process.stderr.write('d'); process.exitCode = 3; }, 20);";
    const result = await runPhase(process.execPath, ['-e', script], {
      cwd: tmpdir(),
      onLine: (line) => lines.push(line),
      stdout: sink,
      stderr: sink,
    });
    expect(result.status).toBe(3);
    expect(lines.sort()).toEqual(['a', 'bc', 'd']);
    expect(passed.join('').split('').sort().join('')).toBe('\n\nabcd');
  });

  it('a command that cannot start is a failed phase, not a crash', async () => {
    const errors: string[] = [];
    const sink = { write: (chunk: string) => errors.push(chunk) };
    const result = await runPhase('/nonexistent/command', [], {
      cwd: tmpdir(),
      onLine: () => undefined,
      stdout: sink,
      stderr: sink,
    });
    expect(result.status).toBe(1);
    expect(errors.join('')).toMatch(/cannot run \/nonexistent\/command/);
  });
});
