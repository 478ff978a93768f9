// Prints "N passed, N failed" from the JSON reports of vitest and Playwright (whichever exist).
// Exits non-zero when no test ran at all or a report is missing or unreadable.
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
let reports = 0;

function read(path) {
  if (!existsSync(path)) return undefined;
  try {
    reports += 1;
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    console.error(`ci-summary: ${path} is not valid JSON`);
    failed += 1;
    return undefined;
  }
}

const vitest = read('test-results/vitest.json');
if (vitest) {
  passed += vitest.numPassedTests ?? 0;
  failed += vitest.numFailedTests ?? 0;
  skipped += (vitest.numPendingTests ?? 0) + (vitest.numTodoTests ?? 0);
}

const pw = read('test-results/playwright.json');
if (pw?.stats) {
  passed += pw.stats.expected ?? 0;
  failed += (pw.stats.unexpected ?? 0) + (pw.stats.flaky ?? 0);
  skipped += pw.stats.skipped ?? 0;
}

console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
if (reports === 0 || passed + failed === 0) process.exit(1);
if (failed > 0) process.exit(1);
