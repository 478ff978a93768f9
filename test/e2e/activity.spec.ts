import { expect, test, type Page } from '@playwright/test';
import type { ActivityResponse } from '#protocol/activity.js';
import { startHarness, type Harness } from '#test/test-bridge.js';
import { saveScreenshot } from './screenshots.js';

let harness: Harness;

test.beforeEach(async () => {
  harness = await startHarness();
});

test.afterEach(async () => {
  await harness.close();
});

/** 14 public and 3 private machines; the private ones are the busiest of all. */
function seedChain(h: Harness): void {
  const unit = h.server.chain.unitNow() - 1; // a completed unit: counted at once
  for (let i = 0; i < 14; i += 1) {
    const id = `pub-${i}`;
    h.server.chain.addMachine({ id, name: `Public machine ${i}`, visibility: 'public' });
    // Distinct counts in a scrambled order, so ranking is not insertion order.
    h.server.chain.addTransitions({ machine_id: id, count: ((i * 5) % 14) + 1, unit });
  }
  for (let i = 0; i < 3; i += 1) {
    const id = `priv-${i}`;
    h.server.chain.addMachine({ id, name: `Secret machine ${i}`, visibility: 'private' });
    h.server.chain.addTransitions({ machine_id: id, count: 500 + i, unit });
  }
}

async function serverRanking(h: Harness): Promise<ActivityResponse> {
  const response = await fetch(`${h.server.url}/api/chain/active?limit=10`);
  return (await response.json()) as ActivityResponse;
}

async function widgetRows(page: Page): Promise<{ rank: string; name: string; count: string }[]> {
  return page.locator('#activity-list li').evaluateAll((items) =>
    items.map((li) => ({
      rank: li.querySelector('.rank')?.textContent ?? '',
      name: li.querySelector('.name')?.textContent ?? '',
      count: li.querySelector('.count')?.textContent ?? '',
    })),
  );
}

test("the widget's order matches the server's ranking, top 10 with bars", async ({ page }) => {
  seedChain(harness);
  await harness.server.publish({
    registry_version: '1.4.2',
    artifacts: [{ name: 'app.txt', content: new TextEncoder().encode('demo\n') }],
  });
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await page.getByRole('button', { name: 'Check now' }).click(); // for the screenshot
  await expect(page.locator('#installed-version')).toHaveText('1.4.2');
  await expect(page.getByRole('heading', { name: 'Most active this time unit' })).toBeVisible();
  await expect(page.locator('#activity-list li')).toHaveCount(10);

  const expected = (await serverRanking(harness)).machines.map((m) => ({
    rank: String(m.rank),
    name: m.name,
    count: String(m.transitions),
  }));
  expect(expected).toHaveLength(10);
  expect(await widgetRows(page)).toEqual(expected);

  // Bars are proportional to the count: the leader is full width, the others in proportion.
  const widths = await page
    .locator('#activity-list .bar-fill')
    .evaluateAll((fills) => fills.map((f) => (f as HTMLElement).style.width));
  const top = Number(expected[0]?.count);
  expect(widths).toEqual(
    expected.map((row) => `${Math.max(2, Math.round((Number(row.count) * 100) / top))}%`),
  );
  // Each row draws its trend from the server's series (docs/PROTOCOL.md §5, series=1): hidden
  // from screen readers (the count is in the row's label), one point per bucket, the peak on top.
  const series = (
    (await (
      await fetch(`${harness.server.url}/api/chain/active?limit=10&series=1`)
    ).json()) as ActivityResponse
  ).machines.map((m) => m.series ?? []);
  const sparks = await page.locator('#activity-list li').evaluateAll((items) =>
    items.map((li) => {
      const svg = li.querySelector('svg.spark');
      const points = (svg?.querySelector('polyline')?.getAttribute('points') ?? '').split(' ');
      return {
        hidden: svg?.getAttribute('aria-hidden'),
        ys: points.map((p) => Number(p.split(',')[1])),
      };
    }),
  );
  expect(sparks).toHaveLength(10);
  sparks.forEach((spark, i) => {
    const line = series[i] ?? [];
    expect(line).toHaveLength(60);
    expect(line.reduce((a, b) => a + b, 0)).toBe(Number(expected[i]?.count));
    expect(spark.hidden).toBe('true');
    expect(spark.ys).toHaveLength(60);
    // All of this seed's transitions are in one recent unit: one point above the baseline
    // (the page's ranking may be a unit older than ours, so its place is not compared
    // exactly), every other on it. Every row shares one scale, the leader's spike: a row's
    // spike reaches as high as its count is of the leader's.
    const raised = spark.ys.filter((y) => y < 14.5);
    const base = spark.ys.filter((y) => y === 14.5).length;
    expect([raised.length, base]).toEqual([1, 59]);
    const share = Number(expected[i]?.count) / Number(expected[0]?.count);
    expect(raised[0]).toBeCloseTo(14.5 - 13 * share, 1);
    expect(spark.ys.findIndex((y) => y < 14.5)).toBeGreaterThanOrEqual(50);
  });
  // Each row is a keyboard stop with a spoken summary.
  const first = page.locator('#activity-list li').first();
  await expect(first).toHaveAttribute(
    'aria-label',
    /^Rank 1: \u2068Public machine \d+\u2069, 14 transitions$/,
  );
  // From the status card's last control (the "More actions" disclosure) to the first row.
  await page.locator('.more summary').focus();
  await page.keyboard.press('Tab');
  await expect(first).toBeFocused();
  await saveScreenshot(page, 'desktop-ranking-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await saveScreenshot(page, 'desktop-ranking-dark');
});

test('private machines never appear, however active', async ({ page }) => {
  seedChain(harness);
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await expect(page.locator('#activity-list li')).toHaveCount(10);
  await expect(page.locator('#activity-list')).not.toContainText('Secret machine');
  const ids = await page
    .locator('#activity-list li')
    .evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset['machineId']));
  expect(ids.some((id) => id?.startsWith('priv-'))).toBe(false);
});

test('the widget refreshes while visible and picks up a new leader', async ({ page }) => {
  seedChain(harness);
  await page.clock.install(); // the page's timers run on Playwright's clock, not real time
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await expect(page.locator('#activity-list li')).toHaveCount(10);
  harness.server.chain.addMachine({ id: 'pub-new', name: 'Newcomer', visibility: 'public' });
  harness.server.chain.addTransitions({
    machine_id: 'pub-new',
    count: 99,
    unit: harness.server.chain.unitNow() - 1,
  });
  await page.clock.runFor(3_000);
  await expect(page.locator('#activity-list li .name').first()).toHaveText('Newcomer');
});

/** Makes the page believe it is hidden or visible, as Electron does when the window hides. */
async function setVisibility(page: Page, state: 'hidden' | 'visible'): Promise<void> {
  await page.evaluate((next) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => next });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
}

test('the widget pauses while hidden and refreshes at once when shown again', async ({ page }) => {
  seedChain(harness);
  await page.clock.install();
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await expect(page.locator('#activity-list li')).toHaveCount(10);
  expect(harness.calls.getActivity).toBe(1);

  await page.clock.runFor(3_000);
  await expect.poll(() => harness.calls.getActivity).toBe(2);

  await setVisibility(page, 'hidden');
  await page.clock.runFor(60_000);
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(done)));
  expect(harness.calls.getActivity).toBe(2);

  await setVisibility(page, 'visible');
  await expect.poll(() => harness.calls.getActivity).toBe(3);
});

test('the widget shows its empty state when no public machine is active', async ({ page }) => {
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await expect(page.locator('#activity-state')).toHaveAttribute('data-state', 'empty');
  await expect(page.locator('#activity-state')).toHaveText(
    'No public machine has been active in this window yet.',
  );
  await expect(page.locator('#activity-list li')).toHaveCount(0);
});
