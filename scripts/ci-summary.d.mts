// Types of scripts/ci-summary.mjs for TypeScript callers (its unit test, run-tests.mjs's).
export const VITEST_REPORT: string;
export const PLAYWRIGHT_REPORT: string;
export interface Summary {
  passed: number;
  failed: number;
  skipped: number;
  skips: { title: string; reason: string | undefined }[];
}
export function summarize(reports: { vitest?: unknown; playwright?: unknown }): Summary;
export function summaryLines(summary: Summary): string[];
export function readReports(dir?: string): {
  vitest: unknown;
  playwright: unknown;
  found: number;
  broken: number;
};
