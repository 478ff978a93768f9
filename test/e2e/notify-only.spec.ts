/**
 * The update policy "only tell" (`notify`, docs/DESKTOP.md "Update policy") against the real
 * core and companion server: a new version is shown on the card with its size and notes, and
 * nothing is downloaded or installed (DIR/current stays exactly as it was, through a second
 * Check now too) until the user chooses Install now. Focus never lands on <body>; axe-core
 * finds nothing in each state.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startHarness, type Harness } from '#test/test-bridge.js';
import { snapshotObject, snapshotTree } from '#test/tree-snapshot.js';
import { expectNoAxeViolations } from './axe.js';
import { expectFocusNeverOnBody, watchFocus } from './viewports.js';

let harness: Harness | undefined;

test.afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

test('only tell: the new version is shown, not installed, until the user chooses Install now', async ({
  page,
}) => {
  test.setTimeout(60_000);
  harness = await startHarness();
  const h = harness;
  await h.server.publish({
    registry_version: '1.0.0',
    artifacts: [{ name: 'app.bin', content: randomBytes(64 * 1024) }],
  });
  await watchFocus(page);
  await h.attach(page);
  await page.goto(h.rendererUrl);
  const checkNow = page.getByRole('button', { name: 'Check now' });
  // 1.0.0 under the default policy (install automatically): the installed set to compare with.
  await checkNow.click();
  await expect(page.locator('#installed-version')).toHaveText('1.0.0');
  const current = join(h.installDir, 'current');
  const before = snapshotObject(await snapshotTree(current));

  h.settings.set('updatePolicy', 'notify');
  await h.server.publish({
    registry_version: '2.0.0',
    notes: 'Sync is **faster**.',
    artifacts: [{ name: 'app.bin', content: randomBytes(200 * 1024) }],
  });
  await checkNow.focus();
  await page.keyboard.press('Enter');
  const offer = page.locator('#offer');
  await expect(offer).toBeVisible();
  await expect(page.locator('#status-line')).toHaveText('Version 2.0.0 is available.');
  await expect(page.locator('#offer-title')).toHaveText(
    'Version 2.0.0 is verified and ready to install: 200.0 KiB to download.',
  );
  await expect(page.getByRole('region', { name: 'Release notes' })).toHaveText('Sync is faster.');
  await expect(page.getByRole('button', { name: 'Install now' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Later' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Skip this version' })).toBeVisible();
  await expect(page.locator('#installed-version')).toHaveText('1.0.0');
  await expect(page.locator('#progress-row')).toBeHidden();
  await expect(checkNow).toBeFocused();
  await expectNoAxeViolations(page, 'notified');
  expect(snapshotObject(await snapshotTree(current))).toEqual(before);

  // A second check still only tells: the offer stays, nothing is pulled or swapped.
  await page.keyboard.press('Enter');
  await expect(page.locator('#status-line')).toHaveText('Version 2.0.0 is available.');
  await expect(offer).toBeVisible();
  await expect(page.locator('#installed-version')).toHaveText('1.0.0');
  expect(snapshotObject(await snapshotTree(current))).toEqual(before);

  // The user acts: now it installs, and focus goes home, not to <body>.
  await page.getByRole('button', { name: 'Install now' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#installed-version')).toHaveText('2.0.0');
  await expect(page.locator('#status-line')).toHaveText('You’re up to date (2.0.0).');
  await expect(offer).toBeHidden();
  await expect(checkNow).toBeFocused();
  expect(snapshotObject(await snapshotTree(current))).not.toEqual(before);
  await expectNoAxeViolations(page, 'installed after notify');
  await expectFocusNeverOnBody(page);
});
