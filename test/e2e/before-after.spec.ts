/**
 * The "after" half of docs/screenshots/BEFORE-AFTER.md: the situations of items 1-8 of the
 * window's first hour, driven exactly as scripts/before-after-shots.ts drives the older window
 * (test/helpers/first-hour-kit.ts), each asserting what the card now shows and saving
 * item-N-after.png (800 px; 380 px for the ranking and the settings), clipped to the card or
 * widget, into docs/screenshots/before-after/ with UPDATE_SCREENSHOT=1. Against the real core and companion server (the
 * test bridge); item 2 against `updater serve` itself over a throttled, cut and restored link.
 * axe-core finds nothing in each state shot.
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startServer } from '#server/compose/start-server.js';
import { startHarness, type Harness } from '#test/test-bridge.js';
import {
  ARTIFACT_ROUTE,
  LINK_BYTES_PER_SECOND,
  NARROW,
  NARROW_TALL,
  NOTES,
  SHOTS_DIR,
  WIDE,
  rankingCard,
  resumeAfterOutage,
  startOutageScene,
  seedRanking,
  settingsCard,
  shoot,
  statusCard,
  textArtifact,
  twoArtifacts,
} from '#test/first-hour-kit.js';
import { expectNoAxeViolations } from './axe.js';
import { SCREENSHOT_DIR } from './screenshots.js';
import { expectFocusNeverOnBody, watchFocus } from './viewports.js';

let harness: Harness | undefined;

/**
 * The pictures go to test-results/ in every run, and into docs/ with UPDATE_SCREENSHOT=1 (as
 * ./screenshots.ts does), so a run does not churn the tracked files with its times and ports.
 */
const AFTER_DIR =
  process.env['UPDATE_SCREENSHOT'] === '1' ? SHOTS_DIR : join(SCREENSHOT_DIR, 'before-after');

test.use({ viewport: WIDE, deviceScaleFactor: 1 });

test.afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function open(page: Page, options?: Parameters<typeof startHarness>[0]): Promise<Harness> {
  harness = await startHarness(options);
  await watchFocus(page);
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  return harness;
}

const checkNow = (page: Page) => page.getByRole('button', { name: 'Check now' });

async function installVersion(h: Harness, page: Page, version: string): Promise<void> {
  await h.server.publish({ registry_version: version, artifacts: textArtifact(`${version}\n`) });
  await checkNow(page).click();
  await expect(page.locator('#installed-version')).toHaveText(version);
}

test('item 1: a Cancel the user chose is said once, as neutral news', async ({ page }) => {
  const h = await open(page, { limits: { parallel: 1 } });
  await h.server.publish({ registry_version: '3.0.0', artifacts: twoArtifacts() });
  h.server.faults.add({ route: ARTIFACT_ROUTE, delay_ms: 300 });
  h.server.faults.add({ route: ARTIFACT_ROUTE, delay_ms: 5_000 });
  await checkNow(page).click();
  await expect(page.locator('#progress-row')).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.locator('#progress-row')).toBeHidden();
  await expect(page.locator('#action-result')).toHaveText(/^The download of 3\.0\.0 was stopped\./);
  await expect(page.locator('#action-result')).toHaveAttribute('data-ok', 'true');
  await expect(page.locator('#status-line')).toHaveText('Nothing installed yet.');
  await expect(page.locator('#error')).toBeHidden();
  await expect(statusCard(page)).not.toContainText('ABORTED');
  await expectNoAxeViolations(page, 'item 1');
  await shoot(statusCard(page), 1, 'after', AFTER_DIR);
  await expectFocusNeverOnBody(page);
});

test('item 2: after an outage the resumed download shows the link’s speed and time left, with no error box', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { link, serve, stop } = await startOutageScene(startServer, 'after');
  try {
    await page.goto(serve.url);
    test.info().annotations.push({
      type: 'resumed by',
      description: await resumeAfterOutage(page, link),
    });
    await expect(page.locator('#status-line')).toHaveText('Downloading version 3.0.0…');
    await expect(page.locator('#error')).toBeHidden();
    const text = (await page.locator('#progress-text').textContent()) ?? '';
    const parts = /([\d.]+) MiB of 12\.0 MiB · ([\d.]+) (KiB|MiB)\/s · about (\d+) s left$/.exec(
      text,
    );
    expect(parts, text).not.toBeNull();
    const [, done, rate, unit, left] = parts ?? [];
    const perSecond = Number(rate) * (unit === 'MiB' ? 1024 * 1024 : 1024);
    // The link's own rate, measured since the resume (not across the 4 s outage), and the time
    // left that rate gives for the rest.
    expect(perSecond).toBeGreaterThan(LINK_BYTES_PER_SECOND * 0.6);
    expect(perSecond).toBeLessThan(LINK_BYTES_PER_SECOND * 1.4);
    const expectedLeft = ((12 - Number(done)) * 1024 * 1024) / perSecond;
    expect(Number(left)).toBeGreaterThanOrEqual(Math.floor(expectedLeft * 0.5));
    expect(Number(left)).toBeLessThanOrEqual(Math.ceil(expectedLeft * 2));
    await expectNoAxeViolations(page, 'item 2');
    await shoot(statusCard(page), 2, 'after', AFTER_DIR);
  } finally {
    expect(await stop()).toBe(0);
  }
});

test('item 3: Roll back asks in the window naming both versions; Check now keeps the version left', async ({
  page,
}) => {
  const h = await open(page);
  await installVersion(h, page, '2.0.0');
  await installVersion(h, page, '3.0.0');
  await page.getByText('More actions').click();
  await page.getByRole('button', { name: 'Roll back' }).click();
  const dialog = page.getByRole('dialog', { name: 'Roll back from 3.0.0 to 2.0.0?' });
  await dialog.getByRole('button', { name: 'Roll back' }).click();
  await expect(page.locator('#installed-version')).toHaveText('2.0.0');
  await checkNow(page).click();
  await expect(page.locator('#action-result')).toHaveText(
    /^Version 3\.0\.0 is available but skipped because you rolled back from it\./,
  );
  await expect(page.locator('#installed-version')).toHaveText('2.0.0');
  await expectNoAxeViolations(page, 'item 3');
  await shoot(statusCard(page), 3, 'after', AFTER_DIR);
  await expectFocusNeverOnBody(page);
});

test('item 4: Check now by keyboard keeps focus on Check now', async ({ page }) => {
  const h = await open(page);
  await h.server.publish({ registry_version: '1.0.0', artifacts: textArtifact('one\n') });
  h.server.faults.add({ route: ARTIFACT_ROUTE, delay_ms: 1_000 });
  await checkNow(page).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#installed-version')).toHaveText('1.0.0');
  await expect(checkNow(page)).toBeFocused();
  await expectNoAxeViolations(page, 'item 4');
  await shoot(statusCard(page), 4, 'after', AFTER_DIR);
  await expectFocusNeverOnBody(page);
});

test('item 5: the ranking at 380 x 560: rows apart, compact counts, exact ones spoken, one Tab stop', async ({
  page,
}) => {
  await page.setViewportSize(NARROW);
  const h = await open(page);
  seedRanking(h.server.chain);
  await page.reload();
  const rows = page.locator('#activity-list li');
  await expect(rows).toHaveCount(10);
  const top = rows.first();
  await expect(top.locator('.count')).toHaveText('54M');
  await expect(rows.nth(3).locator('.count')).toHaveText('844K');
  await expect(top).toHaveAttribute('aria-label', /54,000,080 transitions$/);
  await expect(page.locator('#activity-list li[tabindex="0"]')).toHaveCount(1);
  await expect(rankingCard(page)).toContainText('Most active this time unit');
  // In the tray window's height the list scrolls: no row (or its name) overlaps the next, no
  // count wraps.
  const boxes = await rows.evaluateAll((items) =>
    items.map((li) => {
      const box = li.getBoundingClientRect();
      const name = li.querySelector('.name')?.getBoundingClientRect();
      const count = li.querySelector('.count')?.getBoundingClientRect();
      const bottom = Math.max(box.bottom, name?.bottom ?? 0);
      return { top: box.top, bottom, countHeight: count?.height ?? 0 };
    }),
  );
  const lineHeight = boxes.map((b) => b.countHeight).reduce((a, b) => Math.min(a, b));
  boxes.forEach((box, i) => {
    const next = boxes[i + 1];
    if (next !== undefined) expect(box.bottom).toBeLessThanOrEqual(next.top);
    expect(box.countHeight).toBe(lineHeight);
  });
  await expectNoAxeViolations(page, 'item 5');
  await shoot(rankingCard(page), 5, 'after', AFTER_DIR);
});

test('item 6: a download cut by an outage names the version, the bytes kept and Retry now', async ({
  page,
}) => {
  const h = await open(page, { limits: { parallel: 1, retries: 0 } });
  await h.server.publish({ registry_version: '3.0.0', artifacts: twoArtifacts() });
  h.server.faults.add({ route: ARTIFACT_ROUTE, delay_ms: 200 });
  h.server.faults.add({ route: ARTIFACT_ROUTE, truncate_bytes: 200_000, delay_ms: 1_500 });
  await checkNow(page).click();
  await expect(page.locator('#status-line')).toHaveText('The update to 3.0.0 stopped.');
  await expect(page.locator('#error-kept')).toHaveText(
    /^[\d.]+ KiB of 768\.0 KiB of 3\.0\.0 are kept; the download resumes from there\.$/,
  );
  await expect(page.getByRole('button', { name: 'Retry now' })).toBeVisible();
  await expectNoAxeViolations(page, 'item 6');
  await shoot(statusCard(page), 6, 'after', AFTER_DIR);
  await expectFocusNeverOnBody(page);
});

test('item 7: settings at 380 px: the summary links to its field, a checkbox keeps its label beside it', async ({
  page,
}) => {
  await page.setViewportSize(NARROW_TALL);
  await open(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('Registry address').fill('ftp://registry');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#settings-problems')).toBeFocused();
  await expect(page.locator('#settings-problem-list a')).toHaveAttribute('href', '#registry-url');
  const box = await page.locator('#require-nonce').boundingBox();
  const label = await page.locator('label[for="require-nonce"]').boundingBox();
  // The label starts beside its box, not on the line below it.
  expect(label !== null && box !== null && label.y < box.y + box.height).toBe(true);
  await expectNoAxeViolations(page, 'item 7');
  await shoot(settingsCard(page), 7, 'after', AFTER_DIR);
  await expectFocusNeverOnBody(page);
});

test('item 8: "ask first" offers the version with its size and notes, nothing installed', async ({
  page,
}) => {
  const h = await open(page);
  await installVersion(h, page, '1.0.0');
  h.settings.set('updatePolicy', 'ask');
  await h.server.publish({ registry_version: '2.0.0', notes: NOTES, artifacts: twoArtifacts() });
  await checkNow(page).click();
  await expect(page.locator('#offer-title')).toHaveText(
    'Version 2.0.0 is verified and ready to install: 768.0 KiB to download.',
  );
  await expect(page.getByRole('region', { name: 'Release notes' })).toContainText('Sync is faster');
  await expect(page.getByRole('button', { name: 'Skip this version' })).toBeVisible();
  await expect(page.locator('#installed-version')).toHaveText('1.0.0');
  await expectNoAxeViolations(page, 'item 8');
  await shoot(statusCard(page), 8, 'after', AFTER_DIR);
  await expectFocusNeverOnBody(page);
});
