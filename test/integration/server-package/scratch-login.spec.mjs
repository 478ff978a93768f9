// A QA team's login test with the package's fixtures, in a file of its own: `serverOptions` is a
// worker option (read by `server` and `workerServer` alike), so it is set at the top of a file;
// Playwright refuses it inside a describe block.
import { test, expect } from 'verified-updater-server/playwright';

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
