/**
 * The gave-up page (src/app/gave-up-page.ts) in real Chromium: its CSP accepts its own style by
 * hash and nothing else, it passes axe in light and dark (screenshots in docs/screenshots/), and its Reload button submits the navigation the main
 * process reads (window-lifecycle.ts), with no CSP refusal on the way.
 */
import { expect, test } from '@playwright/test';
import { GAVE_UP_MESSAGE, gaveUpUrl, RECOVERY_ORIGIN } from '#app/gave-up-page.js';
import { shootViewports } from './viewports.js';

test('the gave-up page shows its message and Reload, styled, with no CSP refusal', async ({
  page,
}) => {
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) refusals.push(message.text());
  });
  const navigations: string[] = [];
  page.on('request', (request) => navigations.push(request.url()));
  await page.goto(gaveUpUrl());
  await expect(page.getByRole('alert')).toHaveText(GAVE_UP_MESSAGE);
  const reload = page.getByRole('button', { name: 'Reload' });
  await expect(reload).toBeFocused();
  // The style element applied: its hash is in the CSP.
  expect(await page.evaluate(() => getComputedStyle(document.body).marginTop)).toBe('24px');
  // docs/screenshots/gave-up-<width>-<scheme>.png, axe-clean in light and dark.
  expect(await shootViewports(page, 'gave-up')).toHaveLength(6);
  await reload.click();
  await expect.poll(() => navigations).toContain(`${RECOVERY_ORIGIN}/reload?`);
  expect(refusals).toEqual([]);
});
