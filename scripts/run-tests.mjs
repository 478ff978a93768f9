// `npm test` (README.md §Tests and benchmarks): the set-up (scripts/test-setup.mjs), ESLint and
// Prettier, the type-check, vitest and Playwright, one after the other, each phase's time on one
// line, and as the last line "N passed, N failed, N skipped" for vitest and Playwright together
// (scripts/ci-summary.mjs, after a line per skipped test with its reason). A failed lint or
// type-check does not hide the test results: every phase runs, the failed phase counts as one
// failure in the closing line, and the exit status is 1. Only a failed set-up stops it (without
// Chromium and nginx the suites cannot run). Every phase's output passes through here line by
// line, and a Node warning line in it (`(node:123) Warning: …`, a DeprecationWarning, a
// MaxListenersExceededWarning) fails the run too: warnings are fixed at their source.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
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

/** The phases, in order: a name, the command (run in the repository root), its report. */
export const PHASES = [
  { name: 'set-up', argv: [node, 'scripts/test-setup.mjs'], required: true },
  { name: 'lint', argv: ['npm', 'run', '-s', 'lint'] },
  { name: 'type-check', argv: ['npm', 'run', '-s', 'typecheck'] },
  { name: 'vitest', argv: [node, bin('vitest/vitest.mjs'), 'run'], report: 'vitest' },
  {
    name: 'playwright',
    argv: [node, bin('@playwright/test/cli.js'), 'test'],
    report: 'playwright',
  },
];

// What Node itself prints for process.emitWarning: "(node:PID) [CODE] NameWarning: text"
// (or "Warning: text"), on stderr, whichever process of the run it came from. Colour codes are
// stripped first, since a runner may colour the stderr it passes on.
const NODE_WARNING = /^\(node:\d+\) (?:\[[A-Z]+\d+\] )?[A-Za-z]*Warning: /;

/** True when `line` is a warning Node printed (see NODE_WARNING). */
export function isNodeWarning(line) {
  return NODE_WARNING.test(stripVTControlCharacters(line).trimStart());
}

/** Calls `onLine` with each whole line of a stream's chunks; `end()` flushes the last one. */
function lineSplitter(onLine) {
  let rest = '';
  return {
    push(chunk) {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    },
    end() {
      if (rest !== '') onLine(rest);
      rest = '';
    },
  };
}

/**
 * Runs one command with its output passed through to ours, each line also handed to `onLine`.
 * Resolves with its exit status (1 when it could not start or was killed by a signal).
 * `stdout` and `stderr` are where the output goes (ours by default).
 */
export function runPhase(
  command,
  args,
  { cwd, onLine, stdout = process.stdout, stderr = process.stderr },
) {
  return new Promise((done) => {
    // The runners colour their output when ours is a terminal, as they would with it inherited.
    const color = stdout.isTTY === true ? { FORCE_COLOR: '1' } : {};
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...color },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const streams = [
      [child.stdout, stdout],
      [child.stderr, stderr],
    ].map(([from, to]) => {
      const lines = lineSplitter(onLine);
      from.on('data', (chunk) => {
        to.write(chunk);
        lines.push(chunk);
      });
      return lines;
    });
    child.on('error', (error) => {
      stderr.write(`npm test: cannot run ${command}: ${error.message}\n`);
      done({ status: 1 });
    });
    child.on('close', (status) => {
      for (const lines of streams) lines.end();
      done({ status: status ?? 1 });
    });
  });
}

/**
 * How many failures a failed phase adds to the closing line: none when its own report already
 * counts failed tests, one otherwise (a lint error, a crash, an unhandled error after green
 * tests), so the line never reads "0 failed" on a failed run.
 */
function phaseFailures(phase, reports) {
  if (phase.report === undefined) return 1;
  return summarize({ [phase.report]: reports[phase.report] }).failed > 0 ? 0 : 1;
}

/**
 * Runs the phases with `run` (runPhase by default) and reads the reports under `dir` (the
 * repository); resolves with the exit code.
 */
export async function runTests({
  run = runPhase,
  log = console.log,
  phases = PHASES,
  dir = root,
} = {}) {
  for (const report of [VITEST_REPORT, PLAYWRIGHT_REPORT]) {
    rmSync(join(dir, report), { force: true });
  }
  const failedPhases = [];
  const warnings = [];
  const onLine = (line) => {
    if (isNodeWarning(line)) warnings.push(stripVTControlCharacters(line).trim());
  };
  for (const phase of phases) {
    const started = Date.now();
    const [command = '', ...args] = phase.argv;
    const result = await run(command, args, { cwd: root, onLine });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const ok = result.status === 0;
    log(`npm test: ${phase.name} ${ok ? 'done' : 'FAILED'} in ${seconds} s`);
    if (!ok) {
      failedPhases.push(phase);
      if (phase.required === true) break;
    }
  }
  const reports = readReports(dir);
  const summary = summarize(reports);
  summary.failed += reports.broken;
  for (const phase of failedPhases) summary.failed += phaseFailures(phase, reports);
  const failedNames = failedPhases.map((phase) => phase.name);
  if (warnings.length > 0) {
    log(
      `npm test: ${String(warnings.length)} Node warning line(s) in the output; fix each at its source:`,
    );
    for (const line of warnings) log(`  ${line}`);
    failedNames.push('Node warnings');
    summary.failed += 1;
  }
  if (failedNames.length > 0) log(`npm test: failed: ${failedNames.join(', ')}`);
  for (const line of summaryLines(summary)) log(line);
  const ranNone = summary.passed + summary.failed === 0;
  return failedNames.length > 0 || summary.failed > 0 || ranNone ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await runTests();
}
