/**
 * The updates part of the window (docs/DESKTOP.md "Updates"), against the real core and
 * companion server: progress with target version, percent and Cancel; "Updated from X to Y";
 * Roll back and Verify wired to the core; Open log; a security refusal shown differently from
 * network trouble. axe-core on each state, screenshots under test-results/screenshots/.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startHarness, type Harness } from '#test/test-bridge.js';
import { expectNoAxeViolations } from './axe.js';
import { saveScreenshot } from './screenshots.js';
import { expectFocusNeverOnBody, shootViewports, watchFocus } from './viewports.js';

let harness: Harness | undefined;

test.afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

async function open(h: Harness, page: Page): Promise<void> {
  await h.attach(page);
  await page.goto(h.rendererUrl);
}

async function install(h: Harness, page: Page, version: string, files: Record<string, string>) {
  await h.server.publish({
    registry_version: version,
    artifacts: Object.entries(files).map(([name, content]) => ({ name, content: text(content) })),
  });
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#installed-version')).toHaveText(version);
}

test('while pulling: target version, percent and Cancel; cancelled, then resumed later', async ({
  page,
}) => {
  harness = await startHarness({ limits: { parallel: 1 } });
  await harness.server.publish({
    registry_version: '2.1.0',
    artifacts: [
      { name: 'app/core.bin', content: randomBytes(256 * 1024) },
      { name: 'app/assets.bin', content: randomBytes(256 * 1024) },
    ],
  });
  await open(harness, page);
  // The second artifact waits long enough for a person to press Cancel.
  harness.server.faults.add({ route: 'GET /api/updates/artifacts/:sha256', delay_ms: 300 });
  harness.server.faults.add({ route: 'GET /api/updates/artifacts/:sha256', delay_ms: 5_000 });
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#progress-title')).toHaveText('Downloading 2.1.0');
  await expect(page.locator('#progress-text')).toHaveText(/^\d+ % · .+ of 512\.0 KiB/);
  const cancel = page.getByRole('button', { name: 'Cancel' });
  await expect(cancel).toBeEnabled();
  await expectNoAxeViolations(page, 'downloading');
  await saveScreenshot(page, 'updates-downloading');

  await cancel.click();
  // A cancel the user chose is said once, as neutral news: no error box, no code.
  await expect(page.locator('#action-result')).toHaveText(
    // The bytes kept are named when some were verified (the outage spec proves that case).
    /^The download of 2\.1\.0 was stopped\.( [\d.]+ kB are kept; the next check resumes from there\.)?$/,
  );
  await expect(page.locator('#action-result')).toHaveAttribute('data-ok', 'true');
  await expect(page.locator('#status-line')).toHaveText('Nothing installed yet.');
  await expect(page.locator('#error')).toBeHidden();
  await expect(page.locator('#progress-row')).toBeHidden();
  // Cancel hid with the progress row: focus moved to Check now, not to <body>.
  await expect(page.getByRole('button', { name: 'Check now' })).toBeFocused();
  await expect(page.locator('#installed-version')).toHaveText('none yet');
  await expectNoAxeViolations(page, 'cancelled');
  await saveScreenshot(page, 'updates-cancelled');

  // The core was reopened: a later check installs the release.
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#installed-version')).toHaveText('2.1.0');
  await expect(page.locator('#error')).toBeHidden();
  // The result line belongs to its state: the cancel is no longer shown beside the install.
  await expect(page.locator('#action-result')).toHaveText('Installed version 2.1.0.');
});

test('after an update: "Updated from X to Y" with the time; Roll back and Verify', async ({
  page,
}) => {
  harness = await startHarness();
  await watchFocus(page);
  await open(harness, page);
  await install(harness, page, '1.0.0', { 'a.txt': 'one\n' });
  await expect(page.locator('#last-update')).toHaveText(
    /^Installed 1\.0\.0 at \d{1,2}:\d{2}:\d{2} [AP]M\.$/,
  );
  await expect(page.locator('#roll-back')).toBeDisabled(); // nothing to go back to yet
  await install(harness, page, '1.1.0', { 'a.txt': 'two\n' });
  await expect(page.locator('#last-update')).toHaveText(/^Updated from 1\.0\.0 to 1\.1\.0 at /);
  await saveScreenshot(page, 'updates-updated');

  // Verify: everything matches.
  await page.getByText('More actions').click();
  await page.getByRole('button', { name: 'Verify files' }).click();
  await expect(page.locator('#action-result')).toHaveText(
    'Every installed file of 1.1.0 matches its signed checksum.',
  );
  // A file changed behind the updater's back: Verify names it and says what to do.
  await writeFile(join(harness.installDir, 'current', 'a.txt'), 'tampered\n');
  await page.getByRole('button', { name: 'Verify files' }).click();
  await expect(page.locator('#action-result')).toHaveText(
    '1 file differs from the signed 1.1.0: a.txt (modified). Check for updates now: it restores them from verified copies. (DRIFT)',
  );
  await expect(page.locator('#action-result')).toHaveAttribute('data-ok', 'false');
  await expectNoAxeViolations(page, 'verify drift');
  await saveScreenshot(page, 'updates-verify-drift');

  // Roll back asks first, in the window, naming both versions; Esc declines.
  const rollBack = page.getByRole('button', { name: 'Roll back' });
  await rollBack.click();
  const dialog = page.getByRole('dialog', { name: 'Roll back from 1.1.0 to 1.0.0?' });
  await expect(dialog).toBeVisible();
  await expect(page.getByRole('button', { name: 'Keep the current version' })).toBeFocused();
  await expectNoAxeViolations(page, 'roll back dialog');
  await saveScreenshot(page, 'updates-roll-back-dialog');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(rollBack).toBeFocused();
  await expect(page.locator('#installed-version')).toHaveText('1.1.0');

  await rollBack.click();
  await dialog.getByRole('button', { name: 'Roll back' }).click();
  await expect(page.locator('#installed-version')).toHaveText('1.0.0');
  await expect(page.locator('#status-line')).toHaveText('Rolled back to 1.0.0.');
  await expect(page.locator('#action-result')).toHaveText(
    'Rolled back from 1.1.0 to 1.0.0. 1.1.0 is skipped until a newer version appears.',
  );
  await expect(page.locator('#last-update')).toHaveText(/^Rolled back from 1\.1\.0 to 1\.0\.0 at /);
  await expect(rollBack).toBeFocused();
  await expectNoAxeViolations(page, 'rolled back');
  await saveScreenshot(page, 'updates-rolled-back');

  // Check now respects the skip and says so: 1.1.0 is not installed again.
  const checkNow = page.getByRole('button', { name: 'Check now' });
  await checkNow.click();
  await expect(page.locator('#action-result')).toHaveText(
    /^Version 1\.1\.0 is available but skipped because you rolled back from it\./,
  );
  await expect(page.locator('#installed-version')).toHaveText('1.0.0');
  await expect(checkNow).toBeFocused();
  await expectNoAxeViolations(page, 'skipped');
  await saveScreenshot(page, 'updates-skipped');
  await shootViewports(page, 'rollback-skipped');

  // A newer version ends the skip.
  await install(harness, page, '1.2.0', { 'a.txt': 'three\n' });
  await expect(page.locator('#action-result')).toHaveText('Updated from 1.0.0 to 1.2.0.');
  await expectFocusNeverOnBody(page);
});

test('Open log asks the app to open its log file', async ({ page }) => {
  harness = await startHarness();
  await open(harness, page);
  await page.getByText('More actions').click();
  await page.getByRole('button', { name: 'Open log' }).click();
  await expect(page.locator('#action-result')).toHaveText('The log file is open in your viewer.');
  expect(harness.logOpened.count).toBe(1);
});

test('a security refusal reads differently from network trouble, with what to do', async ({
  page,
}) => {
  // A key the registry does not sign with: every release it sends is refused.
  harness = await startHarness({ pinnedKey: 'ab'.repeat(32) });
  await harness.server.publish({
    registry_version: '3.0.0',
    artifacts: [{ name: 'a.txt', content: text('x\n') }],
  });
  await open(harness, page);
  await page.getByRole('button', { name: 'Check now' }).click();
  const error = page.locator('#error');
  await expect(error).toHaveAttribute('data-kind', 'security');
  await expect(error).toHaveAttribute('role', 'alert');
  await expect(page.locator('#error-title')).toHaveText('Update refused for your safety');
  await expect(page.locator('#status-line')).toHaveText(
    'The last update was refused for your safety.',
  );
  await expect(page.locator('#error-advice')).toHaveText(
    'Nothing was installed and the current version stays. Retrying will not help: tell the registry’s administrator, and do not turn verification off.',
  );
  await expect(page.locator('#installed-version')).toHaveText('none yet');
  await expectNoAxeViolations(page, 'security refusal');
  await saveScreenshot(page, 'updates-security-refusal');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectNoAxeViolations(page, 'security refusal dark');
  await saveScreenshot(page, 'updates-security-refusal-dark');
});
