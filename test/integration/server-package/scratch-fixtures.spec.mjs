// A QA team's Playwright tests with the package's fixtures (verified-updater-server/playwright),
// run by `npx playwright test` inside the scratch project. Plain JavaScript, public entries only.
import { test, expect } from 'verified-updater-server/playwright';

const seen = [];

test('`server` is a fresh server per test: a release published here', async ({ server }) => {
  await server.publish({ registry_version: '2.0.0', artifacts: [] });
  expect(server.updates.currentRelease()?.manifest.registry_version).toBe('2.0.0');
  seen.push(server.url);
});

test('`server` is a fresh server per test: is not there', async ({ server }) => {
  expect(server.updates.currentRelease()?.manifest.registry_version).toBe('0.0.0');
  expect(seen).not.toContain(server.url);
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
});

test.describe('one server per worker', () => {
  const urls = [];
  for (const n of [1, 2]) {
    test(`workerServer, test ${n}`, async ({ workerServer }) => {
      urls.push(workerServer.url);
      expect(new Set(urls).size).toBe(1);
    });
  }
});

test.describe('options from test.use, and the login page in a browser', () => {
  test.use({
    serverOptions: { config: { oauth: { claims: { subjects: { alice: { team: 'qa' } } } } } },
  });

  test('signs in as alice on the login page', async ({ page, server }) => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: 'qa-web',
      redirect_uri: 'http://localhost:3000/callback',
      state: 's1',
    });
    await page.route('http://localhost:3000/**', (route) =>
      route.fulfill({ body: 'back at the app' }),
    );
    await page.goto(`${server.url}/api/oauth/authorize?${params}`);
    await page.getByLabel('Subject').fill('alice');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('body')).toHaveText('back at the app');
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('s1');
    const token = await fetch(`${server.url}/api/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`qa-web:${server.oauth.qaClientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code') ?? '',
        redirect_uri: 'http://localhost:3000/callback',
      }),
    });
    const { access_token } = await token.json();
    const me = await fetch(`${server.url}/api/oauth/userinfo`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(await me.json()).toEqual({ sub: 'alice', team: 'qa' });
  });
});
