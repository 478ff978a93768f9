/**
 * The update policy "ask first" (docs/DESKTOP.md "Update policy") against the real core and
 * companion server: a new version is offered with its size and signed notes (rendered as text
 * only), nothing is downloaded until the user answers; Skip this version keeps it out, Check
 * now says so. Focus never lands on <body>; axe-core finds nothing in each state. And the
 * settings for the policy, the app's own updates and minimise to background round-trip.
 */
import { expect, test, type Page } from '@playwright/test';
import { startHarness, type Harness } from '#test/test-bridge.js';
import { expectNoAxeViolations } from './axe.js';
import { expectFocusNeverOnBody, shootViewports, watchFocus } from './viewports.js';

let harness: Harness | undefined;

test.afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const NOTES = [
  '## 2.0.0',
  '',
  'Faster *sync* and **safer** `verify`.',
  '',
  '- <script>alert(1)</script>',
  '- [a link](javascript:alert(1))',
].join('\n');

async function open(h: Harness, page: Page): Promise<void> {
  await watchFocus(page);
  await h.attach(page);
  await page.goto(h.rendererUrl);
}

test('ask first: offered with size and notes, Skip this version, then Check now says it is skipped', async ({
  page,
}) => {
  harness = await startHarness();
  harness.settings.set('updatePolicy', 'ask');
  await harness.server.publish({
    registry_version: '2.0.0',
    notes: NOTES,
    artifacts: [{ name: 'app.bin', content: new Uint8Array(300 * 1024).fill(7) }],
  });
  await open(harness, page);
  await page.getByRole('button', { name: 'Check now' }).click();
  const offer = page.locator('#offer');
  await expect(offer).toBeVisible();
  await expect(page.locator('#offer-title')).toHaveText(
    'Version 2.0.0 is verified and ready to install: 300.0 KiB to download.',
  );
  const notes = page.getByRole('region', { name: 'Release notes' });
  await expect(notes).toContainText('Faster sync and safer verify.');
  // Raw HTML is text, a link keeps its words only: nothing runs, nothing navigates.
  await expect(notes).toContainText('<script>alert(1)</script>');
  await expect(notes.locator('script, a, img, iframe')).toHaveCount(0);
  await expect(notes).not.toContainText('javascript:');
  await expect(page.locator('#installed-version')).not.toHaveText('2.0.0');
  await expectNoAxeViolations(page, 'offer');
  await shootViewports(page, 'offer');

  await page.getByRole('button', { name: 'Skip this version' }).focus();
  await page.keyboard.press('Enter');
  await expect(offer).toBeHidden();
  await expect(page.locator('#action-result')).toContainText('2.0.0 is skipped');
  await expect(page.getByRole('button', { name: 'Check now' })).toBeFocused();
  expect(harness.settings.get('skippedVersion')).toBe('2.0.0');

  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#action-result')).toContainText(
    'Version 2.0.0 is available but skipped',
  );
  await expect(page.locator('#installed-version')).not.toHaveText('2.0.0');
  await expect(offer).toBeHidden();
  await expectNoAxeViolations(page, 'skipped');
  await shootViewports(page, 'offer-skipped');
  await expectFocusNeverOnBody(page);
});

test('settings: update policy, the app’s own updates and minimise to background are saved', async ({
  page,
}) => {
  harness = await startHarness();
  await open(harness, page);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByLabel('When a new version is found')).toHaveValue('auto');
  await expect(page.getByLabel('Update this app itself')).toHaveValue('ask');
  await expect(page.getByLabel('Keep running in the background when closed')).toBeChecked();
  await page.getByLabel('When a new version is found').selectOption('ask');
  await page.getByLabel('Update this app itself').selectOption('never');
  await page.getByLabel('Keep running in the background when closed').uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#settings-result')).toHaveText('Saved.');
  expect(harness.settings.get('updatePolicy')).toBe('ask');
  expect(harness.settings.get('selfUpdate')).toBe('never');
  expect(harness.settings.get('minimiseToBackground')).toBe(false);
  await expectNoAxeViolations(page, 'settings with policy');
  await shootViewports(page, 'settings-policy');
  await expectFocusNeverOnBody(page);
});
