import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startHarness, type Harness } from '#test/test-bridge.js';
import { saveScreenshot } from './screenshots.js';

let harness: Harness;

test.beforeEach(async () => {
  // One artifact at a time so the delayed second request leaves a visibly partial bar.
  harness = await startHarness({ limits: { parallel: 1 } });
});

test.afterEach(async () => {
  await harness.close();
});

test('the status follows a real update with progress, then shows the installed version', async ({
  page,
}) => {
  await harness.server.publish({
    registry_version: '2.1.0',
    artifacts: [
      { name: 'app/core.bin', content: randomBytes(256 * 1024) },
      { name: 'app/assets.bin', content: randomBytes(512 * 1024) },
    ],
  });
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await expect(page.locator('#installed-version')).toHaveText('none yet');
  await expect(page.locator('#registry')).toHaveText('Demo registry');
  await expect(page.locator('#next-check')).toHaveText('in 1 h');

  // Record every state of the progress bar the page goes through (it is hidden when idle).
  await page.evaluate(() => {
    const seen: { visible: boolean; value: number; max: number }[] = [];
    (window as unknown as { progressSeen: typeof seen }).progressSeen = seen;
    const row = document.getElementById('progress-row') as HTMLElement;
    const bar = document.getElementById('progress') as HTMLProgressElement;
    new MutationObserver(() => {
      seen.push({ visible: !row.hidden, value: bar.value, max: bar.max });
    }).observe(row, { attributes: true, subtree: true });
  });
  // Both artifact requests wait a moment: the window must show the pull in progress.
  harness.server.faults.add({ route: 'GET /api/updates/artifacts/:sha256', delay_ms: 700 });
  harness.server.faults.add({ route: 'GET /api/updates/artifacts/:sha256', delay_ms: 700 });

  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#status-line')).toHaveText('Downloading version 2.1.0…');
  await expect(page.locator('#progress-title')).toHaveText('Downloading 2.1.0');
  await expect(page.locator('#progress-text')).toHaveText(/^\d+ % · .+ of 768\.0 KiB/);
  await expect(page.locator('#progress-row')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Check now' })).toBeDisabled();
  await saveScreenshot(page, 'desktop-status-downloading');

  await expect(page.locator('#installed-version')).toHaveText('2.1.0');
  await expect(page.locator('#status-line')).toHaveText('You’re up to date (2.1.0).');
  await expect(page.locator('#action-result')).toHaveText('Installed version 2.1.0.');
  await expect(page.locator('#progress-row')).toBeHidden();
  await expect(page.locator('#last-check')).toHaveText('just now');
  await expect(page.getByRole('button', { name: 'Check now' })).toBeEnabled();

  const seen = await page.evaluate(
    () =>
      (window as unknown as { progressSeen: { visible: boolean; value: number; max: number }[] })
        .progressSeen,
  );
  const total = 256 * 1024 + 512 * 1024;
  const partial = seen.filter((s) => s.visible && s.value > 0 && s.value < s.max);
  expect(partial.length).toBeGreaterThan(0);
  expect(seen.filter((s) => s.visible).every((s) => s.max === total)).toBe(true);
  expect(harness.controller.getStatus().installedVersion).toBe('2.1.0');
});

test('a second Check now while up to date keeps the version and shows no error', async ({
  page,
}) => {
  await harness.server.publish({
    registry_version: '1.0.0',
    artifacts: [{ name: 'one.txt', content: new TextEncoder().encode('one\n') }],
  });
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  const button = page.getByRole('button', { name: 'Check now' });
  await button.click();
  await expect(page.locator('#installed-version')).toHaveText('1.0.0');
  // Keyboard use: the button is reachable and activates with Enter.
  await button.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#status-line')).toHaveText('You’re up to date (1.0.0).');
  await expect(page.locator('#error')).toBeHidden();
  // The button that acted keeps the focus: it never falls to <body>.
  await expect(button).toBeFocused();
});

test('the error state shows when the server stops', async ({ page }) => {
  await harness.server.publish({
    registry_version: '1.0.0',
    artifacts: [{ name: 'one.txt', content: new TextEncoder().encode('one\n') }],
  });
  harness.server.chain.addMachine({ id: 'm-1', name: 'alpha', visibility: 'public' });
  harness.server.chain.addTransitions({
    machine_id: 'm-1',
    count: 3,
    unit: harness.server.chain.unitNow() - 1,
  });
  await page.clock.install(); // the widget's refresh runs on Playwright's clock, not real time
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await expect(page.locator('#activity-list li')).toHaveCount(1);

  await harness.server.close();
  await page.getByRole('button', { name: 'Check now' }).click();

  // Network trouble is news, not an alarm: a status box titled as such, not an alert.
  const error = page.locator('#error');
  await expect(error).toBeVisible();
  await expect(error).toHaveAttribute('role', 'status');
  await expect(error).toHaveAttribute('data-kind', 'network');
  await expect(page.locator('#error-title')).toHaveText('Connection trouble');
  await expect(page.locator('#error-code')).toHaveText('NETWORK');
  await expect(page.locator('#error-words')).toHaveText('The registry cannot be reached.');
  await expect(page.locator('#error-advice')).toHaveText(
    'The next check retries on its own. If this lasts, check the network connection or the proxy.',
  );
  await expect(page.locator('#status-line')).toHaveText(
    'The last check could not reach the registry.',
  );
  // The widget's next refresh says it is offline and keeps the last ranking it had.
  await page.clock.runFor(3_000);
  await expect(page.locator('#activity-state')).toHaveAttribute('data-state', 'offline');
  await expect(page.locator('#activity-list li')).toHaveCount(1);
  await saveScreenshot(page, 'desktop-error-offline');
});

test('a Check now the main process never answers shows BRIDGE and re-enables the button', async ({
  page,
}) => {
  await harness.attach(page);
  // After the bridge is installed: the main process side of both calls fails.
  await page.addInitScript(() => {
    const w = window as unknown as { updater: Record<string, unknown> };
    const gone = (): Promise<never> => Promise.reject(new Error('main process gone'));
    w.updater = Object.freeze({ ...w.updater, checkNow: gone, getStatus: gone });
  });
  await page.goto(harness.rendererUrl);
  // The first status read failed too: the card says so instead of showing placeholders forever.
  await expect(page.locator('#error-code')).toHaveText('BRIDGE');
  const button = page.getByRole('button', { name: 'Check now' });
  await button.click();
  await expect(page.locator('#error-code')).toHaveText('BRIDGE');
  await expect(page.locator('#error-words')).toHaveText(
    'The app’s background process did not answer.',
  );
  await expect(page.locator('#error-advice')).toHaveText('Try again, or restart the app.');
  await expect(button).toBeEnabled();
});
