// The closing line of `npm test` (scripts/run-tests.mjs) and of .ci/run: "N passed, N failed,
// N skipped" over the JSON reports of vitest and Playwright together, after one line per
// skipped test with the reason it gave, so a skip is never silent.
// As a script: prints them and exits non-zero when a test failed, a report is unreadable, or
// no test ran at all.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const VITEST_REPORT = 'test-results/vitest.json';
export const PLAYWRIGHT_REPORT = 'test-results/playwright.json';

/** Every spec of a Playwright report's suite tree, with its title path. */
function* playwrightSpecs(suites, path = []) {
  for (const suite of suites ?? []) {
    const here = suite.title ? [...path, suite.title] : path;
    for (const spec of suite.specs ?? []) yield { spec, title: [...here, spec.title].join(' › ') };
    yield* playwrightSpecs(suite.suites, here);
  }
}

/**
 * Counts over the parsed reports (either may be undefined): passed, failed, skipped, and each
 * skipped test with its reason where the runner recorded one.
 */
export function summarize({ vitest, playwright }) {
  const out = { passed: 0, failed: 0, skipped: 0, skips: [] };
  if (vitest !== undefined) {
    out.passed += vitest.numPassedTests ?? 0;
    out.failed += vitest.numFailedTests ?? 0;
    out.skipped += (vitest.numPendingTests ?? 0) + (vitest.numTodoTests ?? 0);
    for (const file of vitest.testResults ?? []) {
      for (const t of file.assertionResults ?? []) {
        if (['pending', 'skipped', 'todo'].includes(t.status)) {
          out.skips.push({ title: t.fullName ?? t.title, reason: undefined });
        }
      }
    }
  }
  if (playwright?.stats !== undefined) {
    out.passed += playwright.stats.expected ?? 0;
    out.failed += (playwright.stats.unexpected ?? 0) + (playwright.stats.flaky ?? 0);
    out.skipped += playwright.stats.skipped ?? 0;
    for (const { spec, title } of playwrightSpecs(playwright.suites)) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'skipped') continue;
        const notes = [
          ...(t.annotations ?? []),
          ...(t.results ?? []).flatMap((r) => r.annotations ?? []),
        ];
        const reason = notes.find((a) => a.type === 'skip')?.description;
        out.skips.push({ title, reason });
      }
    }
  }
  return out;
}

/** The lines to print: one per skipped test, then the summary line. */
export function summaryLines(summary) {
  return [
    ...summary.skips.map((s) => `skipped: ${s.title}${s.reason ? `: ${s.reason}` : ''}`),
    `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`,
  ];
}

/** Reads the reports under `dir`; a report that is there but unreadable counts as a failure. */
export function readReports(dir = '.') {
  let broken = 0;
  let found = 0;
  const read = (path) => {
    const file = resolve(dir, path);
    if (!existsSync(file)) return undefined;
    found += 1;
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      console.error(`ci-summary: ${path} is not valid JSON`);
      broken += 1;
      return undefined;
    }
  };
  return { vitest: read(VITEST_REPORT), playwright: read(PLAYWRIGHT_REPORT), found, broken };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const reports = readReports();
  const summary = summarize(reports);
  summary.failed += reports.broken;
  for (const line of summaryLines(summary)) console.log(line);
  if (reports.found === 0 || summary.passed + summary.failed === 0 || summary.failed > 0) {
    process.exitCode = 1;
  }
}
