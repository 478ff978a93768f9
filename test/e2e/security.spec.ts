import { expect, test } from '@playwright/test';
import { startHarness, type Harness } from '#test/test-bridge.js';

let harness: Harness;

test.beforeEach(async () => {
  harness = await startHarness();
});

test.afterEach(async () => {
  await harness.close();
});

test('the page itself cannot reach the registry: CSP connect-src self', async ({ page }) => {
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  const outcome = await page.evaluate(async (url) => {
    try {
      await fetch(url);
      return 'allowed';
    } catch {
      return 'blocked';
    }
  }, `${harness.server.url}/api/chain/active`);
  expect(outcome).toBe('blocked');
});

test('the page arrives with the CSP as a response header, not only its meta tag', async ({
  page,
}) => {
  await harness.attach(page);
  // Served through the app's own app://renderer handler, as in Electron.
  const response = await page.goto(harness.rendererUrl);
  const header = response?.headers()['content-security-policy'] ?? '';
  expect(header).toContain("default-src 'none'");
  expect(header).toContain("connect-src 'self'");
  expect(header).toContain("script-src 'self'");
  expect(header).not.toContain('unsafe');
});

test('injected inline script does not run: CSP script-src self', async ({ page }) => {
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true;';
    document.body.append(script);
    return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
  });
  expect(ran).toBe(false);
});

test('machine names from the network are shown as text, never as markup', async ({ page }) => {
  const unit = harness.server.chain.unitNow() - 1;
  harness.server.chain.addMachine({
    id: 'm-xss',
    name: '<img src=x onerror="window.__xss=1">',
    visibility: 'public',
  });
  harness.server.chain.addTransitions({ machine_id: 'm-xss', count: 2, unit });
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  await expect(page.locator('#activity-list li .name')).toHaveText(
    '<img src=x onerror="window.__xss=1">',
  );
  expect(await page.locator('#activity-list img').count()).toBe(0);
  expect(
    await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
  ).toBeUndefined();
});

test('the bridge exposes exactly the named methods of the contract, frozen', async ({ page }) => {
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  const shape = await page.evaluate(() => {
    const api = (window as unknown as { updater: Record<string, unknown> }).updater;
    return { keys: Object.keys(api).sort(), frozen: Object.isFrozen(api) };
  });
  expect(shape).toEqual({
    keys: [
      'cancel',
      'checkNow',
      'getActivity',
      'getSettings',
      'getStatus',
      'installNow',
      'onSection',
      'onStatus',
      'openLog',
      'rollBack',
      'saveSettings',
      'setPaused',
      'skipVersion',
      'verify',
    ],
    frozen: true,
  });
});
