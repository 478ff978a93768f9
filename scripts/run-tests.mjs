// `npm test` (README.md §Tests and benchmarks): the set-up (scripts/test-setup.mjs), ESLint and
// Prettier, the type-check, vitest and Playwright, one after the other, each phase's time on one
// line, and as the last line "N passed, N failed, N skipped" for vitest and Playwright together
// (scripts/ci-summary.mjs, after a line per skipped test with its reason). A failed lint or
// type-check does not hide the test results: every phase runs, and any failure makes the exit
// status 1. Only a failed set-up stops it (without Chromium and nginx the suites cannot run).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  PLAYWRIGHT_REPORT,
  readReports,
  summarize,
  summaryLines,
  VITEST_REPORT,
} from './ci-summary.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;
const bin = (path) => join(root, 'node_modules', path);

/** The phases, in order: a name and the command (run in the repository root). */
export const PHASES = [
  { name: 'set-up', argv: [node, 'scripts/test-setup.mjs'], required: true },
  { name: 'lint', argv: ['npm', 'run', '-s', 'lint'] },
  { name: 'type-check', argv: ['npm', 'run', '-s', 'typecheck'] },
  { name: 'vitest', argv: [node, bin('vitest/vitest.mjs'), 'run'] },
  { name: 'playwright', argv: [node, bin('@playwright/test/cli.js'), 'test'] },
];

/**
 * Runs the phases with `run` (spawnSync by default) and reads the reports under `dir` (the
 * repository); returns the exit code.
 */
export function runTests({ run = spawnSync, log = console.log, phases = PHASES, dir = root } = {}) {
  for (const report of [VITEST_REPORT, PLAYWRIGHT_REPORT]) {
    rmSync(join(dir, report), { force: true });
  }
  const failedPhases = [];
  for (const phase of phases) {
    const started = Date.now();
    const [command = '', ...args] = phase.argv;
    const result = run(command, args, { cwd: root, stdio: 'inherit' });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const ok = result.status === 0;
    log(`npm test: ${phase.name} ${ok ? 'done' : 'FAILED'} in ${seconds} s`);
    if (!ok) {
      failedPhases.push(phase.name);
      if (phase.required === true) break;
    }
  }
  const reports = readReports(dir);
  const summary = summarize(reports);
  summary.failed += reports.broken;
  if (failedPhases.length > 0) log(`npm test: failed: ${failedPhases.join(', ')}`);
  for (const line of summaryLines(summary)) log(line);
  const ranNone = summary.passed + summary.failed === 0;
  return failedPhases.length > 0 || summary.failed > 0 || ranNone ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = runTests();
}
