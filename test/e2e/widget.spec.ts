/**
 * The ranking widget as a user meets it (docs/DESKTOP.md "Widget"): window in seconds, "as of"
 * time, ties, thousands separators, bidi-isolated names, focus kept across a refresh, offline
 * dimming, forced colours, 200 % zoom and the user's font size; axe-core on every state and a
 * screenshot of each under test-results/screenshots/.
 */
import { expect, test, type Page } from '@playwright/test';
import { startHarness, type Harness } from '#test/test-bridge.js';
import { expectNoAxeViolations } from './axe.js';
import { saveScreenshot } from './screenshots.js';

let harness: Harness;

test.beforeEach(async () => {
  harness = await startHarness();
});

test.afterEach(async () => {
  await harness.close();
});

function addMachine(h: Harness, id: string, name: string, count: number): void {
  h.server.chain.addMachine({ id, name, visibility: 'public' });
  h.server.chain.addTransitions({ machine_id: id, count, unit: h.server.chain.unitNow() - 1 });
}

function seed(h: Harness): void {
  for (let i = 0; i < 10; i += 1) addMachine(h, `pub-${i}`, `Public machine ${i}`, 10 + i * 3);
}

async function open(page: Page): Promise<void> {
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
}

const rows = (page: Page) => page.locator('#activity-list li');

test('the window is explained: units in seconds from unit_ms, and the time of the ranking', async ({
  page,
}) => {
  seed(harness);
  const generatedAt = async (): Promise<number> => {
    const answer = await fetch(`${harness.server.url}/api/chain/active`);
    return Date.parse(((await answer.json()) as { generated_at: string }).generated_at);
  };
  const before = await generatedAt();
  await page.clock.install(); // the page fetches once: its "as of" then stays put
  await open(page);
  await expect(rows(page)).toHaveCount(10);
  await expect(page.locator('#activity-window')).toHaveText(
    'state changes per machine, last 60 units ≈ 47 s',
  );
  const after = await generatedAt();
  // The page shows the generated_at of the answer it received, in its zone (UTC in
  // playwright.config.ts). A unit (783 ms) may pass between its fetch and ours, so any second
  // from the ranking before it to the one after it is the right answer.
  const seconds: string[] = [];
  for (let t = Math.floor(before / 1000) * 1000; t <= after; t += 1000) {
    seconds.push(`as of ${new Date(t).toLocaleTimeString('en-US', { timeZone: 'UTC' })}`);
  }
  expect(seconds).toContain(await page.locator('#activity-as-of').textContent());
  // The counts carry a label, and the list's name says what the window is.
  await expect(page.locator('.activity-columns')).toContainText('Transitions');
  await expect(page.getByRole('list', { name: /Most active this time unit/ })).toHaveAccessibleName(
    'Most active this time unit state changes per machine, last 60 units ≈ 47 s',
  );
  await expectNoAxeViolations(page, 'ranking light');
  await saveScreenshot(page, 'widget-ranking-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectNoAxeViolations(page, 'ranking dark');
  await saveScreenshot(page, 'widget-ranking-dark');
});

test('equal counts share a rank; counts are compact, the exact figure is spoken', async ({
  page,
}) => {
  addMachine(harness, 'm-a', 'alpha', 12_500);
  addMachine(harness, 'm-b', 'beta', 12_500);
  addMachine(harness, 'm-c', 'gamma', 980);
  await open(page);
  await expect(rows(page)).toHaveCount(3);
  await expect(page.locator('#activity-list .rank')).toHaveText(['1', '1', '3']);
  await expect(page.locator('#activity-list .count')).toHaveText(['12.5K', '12.5K', '980']);
  await expect(rows(page).first()).toHaveAttribute(
    'aria-label',
    'Rank 1, tied: \u2068alpha\u2069, 12,500 transitions',
  );
  await expect(rows(page).nth(2)).toHaveAttribute(
    'aria-label',
    'Rank 3: \u2068gamma\u2069, 980 transitions',
  );
});

test('the ranking is one Tab stop; arrows, Home and End move inside it', async ({ page }) => {
  addMachine(harness, 'm-a', 'alpha', 30);
  addMachine(harness, 'm-b', 'beta', 20);
  addMachine(harness, 'm-c', 'gamma', 10);
  await open(page);
  await expect(rows(page)).toHaveCount(3);
  const tabIndexes = () =>
    rows(page).evaluateAll((li) => li.map((r) => (r as HTMLElement).tabIndex));
  expect(await tabIndexes()).toEqual([0, -1, -1]);
  await rows(page).first().focus();
  await page.keyboard.press('ArrowDown');
  await expect(rows(page).nth(1)).toBeFocused();
  expect(await tabIndexes()).toEqual([-1, 0, -1]);
  await page.keyboard.press('End');
  await expect(rows(page).nth(2)).toBeFocused();
  await page.keyboard.press('Home');
  await expect(rows(page).first()).toBeFocused();
  // One Tab leaves the list: the rows are not ten stops.
  await page.keyboard.press('Tab');
  await expect(rows(page).nth(1)).not.toBeFocused();
  expect(await page.evaluate(() => document.activeElement?.closest('#activity-list'))).toBeNull();
});

test('a name carrying U+202E is isolated: it cannot reorder the row or its spoken label', async ({
  page,
}) => {
  addMachine(harness, 'm-rlo', 'evil\u202Eabc', 5);
  addMachine(harness, 'm-ok', 'plain', 3);
  await open(page);
  await expect(rows(page)).toHaveCount(2);
  const name = rows(page).first().locator('.name');
  await expect(name).toHaveText('evil\u202Eabc');
  expect(await name.evaluate((el) => [el.tagName, getComputedStyle(el).unicodeBidi])).toEqual([
    'BDI',
    'isolate',
  ]);
  await expect(rows(page).first()).toHaveAttribute(
    'aria-label',
    'Rank 1: \u2068evil\u202Eabc\u2069, 5 transitions',
  );
  // Rank, name, bar, count keep their order on screen: the count is still right of the name.
  const [nameBox, countBox] = await Promise.all([
    name.boundingBox(),
    rows(page).first().locator('.count').boundingBox(),
  ]);
  expect((countBox?.x ?? 0) > (nameBox?.x ?? 0) + (nameBox?.width ?? 0)).toBe(true);
  await saveScreenshot(page, 'widget-bidi-name');
});

for (const engine of ['moveBefore', 'insertBefore'] as const) {
  test(`keyboard focus stays on its machine across a refresh that reorders the rows (${engine})`, async ({
    page,
  }) => {
    if (engine === 'insertBefore') {
      // An engine without Element.moveBefore (Chromium < 133): the fallback puts focus back.
      await page.addInitScript(() => {
        delete (Element.prototype as { moveBefore?: unknown }).moveBefore;
      });
    }
    seed(harness);
    await page.clock.install();
    await open(page);
    await expect(rows(page)).toHaveCount(10);
    const target = page.locator('#activity-list li[data-machine-id="pub-2"]');
    await target.focus();
    const before = await target.evaluate((li) =>
      Array.from(li.parentElement?.children ?? []).indexOf(li),
    );
    expect(before).toBe(7); // 16 transitions: eighth of ten
    // pub-2 becomes the leader; a newcomer pushes the last one out.
    harness.server.chain.addTransitions({
      machine_id: 'pub-2',
      count: 100,
      unit: harness.server.chain.unitNow() - 1,
    });
    addMachine(harness, 'pub-new', 'Newcomer', 50);
    await page.clock.runFor(3_000);
    await expect(rows(page).first()).toHaveAttribute('data-machine-id', 'pub-2');
    await expect(target).toBeFocused();
    await expect(target).toHaveAttribute('aria-label', /^Rank 1: .*, 116 transitions$/);
    // Same element, updated in place (not a new row that happens to look the same).
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-machine-id'))).toBe(
      'pub-2',
    );
    await expect(rows(page).nth(1)).toHaveAttribute('data-machine-id', 'pub-new');
  });
}

test('offline: the last ranking stays, dimmed, with the time it was computed', async ({ page }) => {
  seed(harness);
  await page.clock.install();
  await open(page);
  await expect(rows(page)).toHaveCount(10);
  const asOf = (await page.locator('#activity-as-of').textContent()) ?? '';
  const liveColour = await rows(page)
    .first()
    .evaluate((li) => getComputedStyle(li).color);
  await harness.server.close();
  await page.clock.runFor(3_000);
  const state = page.locator('#activity-state');
  await expect(state).toHaveAttribute('data-state', 'offline');
  await expect(state).toHaveText(
    `Offline: The registry cannot be reached. Showing the ranking ${asOf}.`,
  );
  await expect(page.locator('#activity-list')).toHaveAttribute('data-stale', 'true');
  await expect(rows(page)).toHaveCount(10);
  const staleColour = await rows(page)
    .first()
    .evaluate((li) => getComputedStyle(li).color);
  expect(staleColour).not.toBe(liveColour);
  await expectNoAxeViolations(page, 'offline');
  await saveScreenshot(page, 'widget-offline');
});

test('the empty and loading states', async ({ page }) => {
  harness.server.faults.add({ route: 'GET /api/chain/active', delay_ms: 1_500 });
  await open(page);
  await expect(page.locator('#activity-state')).toHaveAttribute('data-state', 'loading');
  await expectNoAxeViolations(page, 'loading');
  await saveScreenshot(page, 'widget-loading');
  await expect(page.locator('#activity-state')).toHaveAttribute('data-state', 'empty');
  await expectNoAxeViolations(page, 'empty');
  await saveScreenshot(page, 'widget-empty');
});

test('forced colours: the bars stay visible, in system colours', async ({ page }) => {
  seed(harness);
  await open(page);
  await expect(rows(page)).toHaveCount(10);
  await page.emulateMedia({ forcedColors: 'active' });
  const colours = await page.evaluate(() => {
    const fill = document.querySelector('#activity-list .bar-fill') as HTMLElement;
    const bar = fill.parentElement as HTMLElement;
    return {
      fill: getComputedStyle(fill).backgroundColor,
      track: getComputedStyle(bar).backgroundColor,
      canvas: getComputedStyle(document.body).backgroundColor,
      border: getComputedStyle(bar).borderTopStyle,
      width: fill.getBoundingClientRect().width,
    };
  });
  expect(colours.fill).not.toBe('rgba(0, 0, 0, 0)');
  expect(colours.fill).not.toBe(colours.canvas);
  expect(colours.fill).not.toBe(colours.track);
  expect(colours.border).toBe('solid');
  expect(colours.width).toBeGreaterThan(0);
  await expectNoAxeViolations(page, 'forced colours');
  await saveScreenshot(page, 'widget-forced-colors');
});

test('fits the window at 100 %, crowded or not; at 200 % it scrolls inside itself, never sideways', async ({
  page,
}) => {
  seed(harness);
  await open(page);
  await expect(rows(page)).toHaveCount(10);
  const fit = () =>
    page.evaluate(() => {
      const main = document.querySelector('main') as HTMLElement;
      const list = document.querySelector('#activity-list') as HTMLElement;
      return {
        vertical: main.scrollHeight <= main.clientHeight,
        sideways: main.scrollWidth > main.clientWidth,
        pageScrolls: document.documentElement.scrollHeight > window.innerHeight,
        listScrolls: list.scrollHeight > list.clientHeight,
      };
    });
  // At 100 % the window never scrolls as a whole, whatever the fonts make of the text: the
  // ranking's list takes what room is left and scrolls inside itself when it lacks any.
  expect(await fit()).toMatchObject({ vertical: true, sideways: false, pageScrolls: false });
  // The most crowded status card: an error, the last update and the progress row at once.
  await page.evaluate(() => {
    for (const id of ['error', 'last-update', 'progress-row']) {
      const el = document.getElementById(id) as HTMLElement;
      el.hidden = false;
    }
    (document.getElementById('error-words') as HTMLElement).textContent =
      'The registry could not be reached: the connection was refused.';
    (document.getElementById('error-advice') as HTMLElement).textContent =
      'Nothing to do: the next check retries.';
    (document.getElementById('last-update') as HTMLElement).textContent =
      'Updated from 1.0.0 to 1.1.0 at 12:48:11 PM.';
  });
  expect(await fit()).toEqual({
    vertical: true,
    sideways: false,
    pageScrolls: false,
    listScrolls: true,
  });
  const last = rows(page).last();
  await last.focus(); // the list scrolls its last row into view
  await expect(last).toBeInViewport();
  await expectNoAxeViolations(page, 'crowded 100 %');
  await saveScreenshot(page, 'widget-crowded');
  await page.reload();
  await expect(rows(page)).toHaveCount(10);

  // 200 % zoom of the 380 x 560 window is a 190 x 280 CSS-pixel viewport.
  await page.setViewportSize({ width: 190, height: 280 });
  expect(await fit()).toEqual({
    vertical: false,
    sideways: false,
    pageScrolls: false,
    listScrolls: false,
  });
  // Names keep room to be read: the bar moves under them rather than squeezing them out.
  const nameWidth = await rows(page)
    .first()
    .locator('.name')
    .evaluate((el) => el.clientWidth);
  expect(nameWidth).toBeGreaterThanOrEqual(48);
  await saveScreenshot(page, 'widget-zoom-200-top');
  await last.focus(); // keyboard users reach the last row: <main> scrolls it into view
  await expect(last).toBeInViewport();
  await expectNoAxeViolations(page, 'zoom 200 %');
  await saveScreenshot(page, 'widget-zoom-200-bottom');
});

test("sizes follow the user's font size (rem), and the focus ring has 3:1 on both themes", async ({
  page,
}) => {
  seed(harness);
  await open(page);
  await expect(rows(page)).toHaveCount(10);
  const sizeAt = (rootPx: string) =>
    page.evaluate((px) => {
      document.documentElement.style.fontSize = px;
      return parseFloat(getComputedStyle(document.querySelector('.name') as Element).fontSize);
    }, rootPx);
  expect(await sizeAt('16px')).toBe(14);
  expect(await sizeAt('24px')).toBe(21);
  await sizeAt('');

  await rows(page).first().focus();
  await page.keyboard.press('ArrowDown'); // a key press makes the focus :focus-visible
  await rows(page).nth(1).focus();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const ratio = await rows(page)
      .nth(1)
      .evaluate((li) => {
        const rgb = (c: string): number[] => (c.match(/\d+/g) ?? []).slice(0, 3).map(Number);
        const lum = (c: string): number => {
          const [r, g, b] = rgb(c).map((v) => {
            const s = v / 255;
            return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
          }) as [number, number, number];
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const style = getComputedStyle(li);
        const card = getComputedStyle(li.closest('.card') as Element).backgroundColor;
        const [hi, lo] = [lum(style.outlineColor), lum(card)].sort((a, b) => b - a) as [
          number,
          number,
        ];
        return { style: style.outlineStyle, ratio: (hi + 0.05) / (lo + 0.05) };
      });
    expect(ratio.style).toBe('solid');
    expect(ratio.ratio).toBeGreaterThanOrEqual(3);
    await saveScreenshot(page, `widget-focus-${scheme}`);
  }
});

test.describe('in a language whose compact counts are longer', () => {
  test.use({ locale: 'de-DE' });

  test('every count fits its column, and the columns still line up', async ({ page }) => {
    // The chain takes at most a million transitions per call: 13.5 million in 14 calls.
    addMachine(harness, 'big', 'Build farm', 1_000_000);
    const unit = harness.server.chain.unitNow() - 1;
    for (let i = 0; i < 12; i += 1) {
      harness.server.chain.addTransitions({ machine_id: 'big', count: 1_000_000, unit });
    }
    harness.server.chain.addTransitions({ machine_id: 'big', count: 500_000, unit });
    addMachine(harness, 'mid', 'Lab bench', 843_830);
    addMachine(harness, 'small', 'Kiosk', 287);
    await page.setViewportSize({ width: 380, height: 560 });
    await open(page);
    await expect(rows(page)).toHaveCount(3);
    await expect(rows(page).first().locator('.count')).toHaveText('13,5 Mio.');
    const cells = await page.locator('#activity-list .count').evaluateAll((els) =>
      els.map((el) => ({
        fits: el.scrollWidth <= el.clientWidth,
        left: Math.round(el.getBoundingClientRect().left),
      })),
    );
    expect(cells.every((cell) => cell.fits)).toBe(true);
    expect(new Set(cells.map((cell) => cell.left)).size).toBe(1);
    await expectNoAxeViolations(page, 'de-DE counts');
  });
});
