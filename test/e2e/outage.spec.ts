/**
 * A download that meets an outage (docs/DESKTOP.md "Updates"): the card says which version
 * stopped, how much is kept and offers Retry now; the retried download runs with no error box
 * beside it; the install then reads as an install. Against the real core and companion server,
 * whose dev faults cut the artifact mid-body (one-shot). Focus never falls to <body>; axe-core
 * on every state; screenshots at 380/800/1280 px, light and dark, in docs/screenshots/.
 */
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startHarness, type Harness } from '#test/test-bridge.js';
import { expectNoAxeViolations } from './axe.js';
import { expectFocusNeverOnBody, shootViewports, watchFocus } from './viewports.js';

let harness: Harness | undefined;

test.afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

test('outage mid-download: failed with the bytes kept and Retry now; resumed without the error box', async ({
  page,
}) => {
  test.setTimeout(90_000);
  // One artifact at a time and no retry inside the run, so the cut ends the run.
  harness = await startHarness({ limits: { parallel: 1, retries: 0 } });
  await harness.server.publish({
    registry_version: '3.0.0',
    artifacts: [
      { name: 'app/core.bin', content: randomBytes(256 * 1024) },
      { name: 'app/assets.bin', content: randomBytes(512 * 1024) },
    ],
  });
  await watchFocus(page);
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  const route = 'GET /api/updates/artifacts/:sha256';
  harness.server.faults.add({ route, delay_ms: 200 });
  harness.server.faults.add({ route, truncate_bytes: 200_000, delay_ms: 1_500 });

  const checkNow = page.getByRole('button', { name: 'Check now' });
  await checkNow.click();
  // The first artifact is in before the second is cut: those bytes are verified and kept.
  await expect(page.locator('#progress-text')).toHaveText(/^[1-9]\d* % · /);
  await expect(page.locator('#status-line')).toHaveText('The update to 3.0.0 stopped.');
  const error = page.locator('#error');
  await expect(error).toBeVisible();
  await expect(error).toHaveAttribute('data-kind', 'network');
  await expect(page.locator('#error-kept')).toHaveText(
    /^[\d.]+ KiB of 768\.0 KiB of 3\.0\.0 are kept; the download resumes from there\.$/,
  );
  await expect(page.locator('#progress-row')).toBeHidden();
  const retry = page.getByRole('button', { name: 'Retry now' });
  await expect(retry).toBeVisible();
  await expect(checkNow).toBeFocused();
  await shootViewports(page, 'outage-failed');

  // The registry is back, slowly: the resumed download shows, and the error box is gone.
  harness.server.faults.add({ route, delay_ms: 2_500 });
  await retry.click();
  await expect(page.locator('#status-line')).toHaveText('Downloading version 3.0.0…');
  await expect(error).toBeHidden();
  await expect(page.locator('#action-result')).toBeHidden();
  await expect(page.locator('#progress-row')).toBeVisible();
  // Retry hid itself with the box: focus moved to Check now, not to <body>.
  await expect(checkNow).toBeFocused();
  await expectNoAxeViolations(page, 'resumed');

  await expect(page.locator('#installed-version')).toHaveText('3.0.0');
  await expect(page.locator('#status-line')).toHaveText('You’re up to date (3.0.0).');
  await expect(page.locator('#action-result')).toHaveText('Installed version 3.0.0.');
  await expect(error).toBeHidden();
  await shootViewports(page, 'outage-installed');

  // Check now with nothing new says so.
  await checkNow.click();
  await expect(page.locator('#status-line')).toHaveText('You’re up to date (3.0.0).');
  await expect(page.locator('#action-result')).toBeHidden();
  await expect(checkNow).toBeFocused();
  await expectFocusNeverOnBody(page);
});
