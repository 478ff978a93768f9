/**
 * The settings screen through the test bridge (docs/DESKTOP.md "Settings"): the round trip of
 * every field through the real settings service, plain-word refusals next to their fields and
 * in a focused summary, keyboard in and out, axe-core with zero violations and screenshots.
 * The real restart on another registry is proven in the web window (settings-web.spec.ts).
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

async function openSettings(page: Page): Promise<void> {
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeFocused();
  await expect(page.getByLabel('Registry address')).toHaveValue(harness.server.url);
}

test('the settings round trip: shown, changed, saved, applied and shown again', async ({
  page,
}) => {
  await openSettings(page);
  // The cards it replaces are gone while it is open; the machine key is never shown.
  await expect(page.locator('#activity-title')).toBeHidden();
  await expect(page.getByLabel('Registry public keys')).toHaveValue(harness.server.nodePubkey);
  await expect(page.getByLabel('Machine key')).toHaveValue('');
  await expect(page.locator('#machine-key-hint')).toHaveText(
    'A key is kept: leave the field empty to keep it. Kept encrypted by your system’s keychain; never shown again.',
  );
  await expect(page.getByLabel('Check for updates every (minutes)')).toHaveValue('60');
  await expectNoAxeViolations(page, 'settings');
  await saveScreenshot(page, 'settings');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectNoAxeViolations(page, 'settings dark');
  await saveScreenshot(page, 'settings-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  await page.getByLabel('Check for updates every (minutes)').fill('15');
  await page.getByLabel('Pause automatic updates').check();
  await page.getByLabel('Start at login').check();
  await expect(page.getByLabel('Ask for a freshly signed answer at every check')).not.toBeChecked();
  await page.getByLabel('Ask for a freshly signed answer at every check').check();
  await page.getByRole('button', { name: 'Save' }).click();
  const host = new URL(harness.server.url).host;
  await expect(page.locator('#settings-result')).toHaveText(
    `Saved. The updater restarted on ${host}.`,
  );
  expect(harness.settings.get('checkIntervalMs')).toBe(15 * 60_000);
  expect(harness.settings.get('startAtLogin')).toBe(true);
  expect(harness.settings.get('requireNonce')).toBe(true);
  expect(harness.restarts).toEqual({ count: 1, loginItem: [true] });
  expect(harness.controller.getStatus().paused).toBe(true);

  // Back (Escape) returns to the cards with focus on the Settings button; the status says paused.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('button', { name: 'Settings' })).toBeFocused();
  await expect(page.locator('#status-line')).toHaveText('Automatic updates are paused.');
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByLabel('Check for updates every (minutes)')).toHaveValue('15');
  await expect(page.getByLabel('Pause automatic updates')).toBeChecked();
  await expect(page.getByLabel('Start at login')).toBeChecked();
  await expect(page.getByLabel('Ask for a freshly signed answer at every check')).toBeChecked();
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page.locator('#activity-title')).toBeVisible();
});

test('invalid input: each problem in plain words next to its field, nothing saved', async ({
  page,
}) => {
  await openSettings(page);
  await page.getByLabel('Registry address').fill('http://updates.example.com');
  await page.getByLabel('Registry public keys').fill('abc');
  await page.getByLabel('Check for updates every (minutes)').fill('0');
  await page.getByRole('button', { name: 'Save' }).click();

  const summary = page.locator('#settings-problems');
  await expect(summary).toBeFocused();
  await expect(summary.locator('li')).toHaveText([
    'The address must start with https:// (plain http only on this computer).',
    'A public key has 64 characters; this one has 3.',
    'Check at most once a minute: enter 1 or more.',
  ]);
  await expect(page.getByLabel('Registry address')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByLabel('Registry address')).toHaveAccessibleDescription(
    /The address must start with https:\/\//,
  );
  await expect(page.locator('#pinned-keys-error')).toHaveText(
    'A public key has 64 characters; this one has 3.',
  );
  await expect(page.getByLabel('Machine key')).not.toHaveAttribute('aria-invalid', 'true');
  expect(harness.settings.get('baseUrl')).toBe(harness.server.url);
  expect(harness.restarts.count).toBe(0);
  await expectNoAxeViolations(page, 'settings invalid');
  await saveScreenshot(page, 'settings-invalid');

  // Leaving the demo needs the key: an empty address means the demo, nothing else is asked.
  await page.getByLabel('Registry address').fill('');
  await page.getByLabel('Check for updates every (minutes)').fill('30');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#settings-result')).toHaveText(
    'Saved. The updater restarted on the demo registry.',
  );
  await expect(summary).toBeHidden();
  await expect(page.getByLabel('Registry address')).not.toHaveAttribute('aria-invalid', 'true');
  expect(harness.settings.get('baseUrl')).toBe('');
});
