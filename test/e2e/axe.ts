// axe-core (through @axe-core/playwright) on the window as it is now: WCAG 2.0-2.2 A and AA
// rules plus axe's best practices. The engine is injected with page.evaluate, which runs
// outside the page's CSP, so the page keeps its CSP exactly as in Electron.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** Runs axe and expects zero violations; each one is listed with its rule and its elements. */
export async function expectNoAxeViolations(page: Page, state: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const found = results.violations.map(
    (v) =>
      `${state}: ${v.id} (${v.impact ?? 'n/a'}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  expect(found).toEqual([]);
  // The run checked something: an empty page would pass every rule.
  expect(results.passes.length).toBeGreaterThan(10);
}
