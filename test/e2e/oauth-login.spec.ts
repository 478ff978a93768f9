/**
 * The OAuth login page in Chromium (docs/PROTOCOL.md §4.5), with the package's own Playwright
 * fixture (packages/server/src/playwright.ts): a relying party on loopback sends the browser to
 * GET /api/oauth/authorize without login_hint; the tester picks the subject and extra claims;
 * the browser comes back with a code that redeems into an ID token carrying them, and userinfo
 * answers them too. Deny, a bad claims text, the CSP and accessibility are checked as well.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '../../packages/server/src/playwright.js';
import { expectNoAxeViolations } from './axe.js';

interface Rp {
  readonly redirectUri: string;
  /** Query strings the callback received, newest last. */
  readonly callbacks: URLSearchParams[];
  close(): Promise<void>;
}

/** A relying party's callback on loopback that records what it gets. */
async function relyingParty(): Promise<Rp> {
  const callbacks: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // The browser also asks for /favicon.ico: only the callback counts.
    if (url.pathname === '/callback') callbacks.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>RP</title><h1>Back at the app</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    callbacks,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let rp: Rp;
test.beforeEach(async () => {
  rp = await relyingParty();
});
test.afterEach(async () => {
  await rp.close();
});

const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

function authorizeUrl(base: string): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'desktop-app',
    redirect_uri: rp.redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'openid profile',
    state: 'st-e2e',
    nonce: 'n-e2e',
  });
  return `${base}/api/oauth/authorize?${q.toString()}`;
}

test.use({
  serverOptions: {
    config: { oauth: { claims: { subjects: { alice: { email: 'alice@example.test' } } } } },
  },
});

test('signs in as the chosen subject with extra claims; the code redeems into them', async ({
  page,
  server,
}) => {
  await page.goto(authorizeUrl(server.url));
  await expect(page.getByRole('heading', { name: 'Sign in to desktop-app' })).toBeVisible();
  await expect(page.locator('#login-redirect')).toHaveText(rp.redirectUri);
  await page.getByLabel('Subject').fill('alice');
  await page.getByLabel('Extra ID token claims').fill('{"roles": ["qa", "admin"]}');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Back at the app' })).toBeVisible();

  const back = rp.callbacks.at(-1);
  expect(back?.get('state')).toBe('st-e2e');
  expect(back?.get('iss')).toBe(server.url);
  const token = await fetch(`${server.url}/api/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'desktop-app',
      code: back?.get('code') ?? '',
      redirect_uri: rp.redirectUri,
      code_verifier: verifier,
    }),
  });
  expect(token.status).toBe(200);
  const { id_token, access_token } = (await token.json()) as Record<string, string>;
  const claims = JSON.parse(
    Buffer.from(String(id_token).split('.')[1] ?? '', 'base64url').toString(),
  ) as Record<string, unknown>;
  expect(claims).toMatchObject({
    sub: 'alice',
    nonce: 'n-e2e',
    email: 'alice@example.test',
    roles: ['qa', 'admin'],
  });
  const me = await fetch(`${server.url}/api/oauth/userinfo`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  expect(await me.json()).toEqual({
    sub: 'alice',
    email: 'alice@example.test',
    roles: ['qa', 'admin'],
  });
});

test('deny comes back with access_denied and no code', async ({ page, server }) => {
  await page.goto(authorizeUrl(server.url));
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByRole('heading', { name: 'Back at the app' })).toBeVisible();
  expect(rp.callbacks.at(-1)?.get('error')).toBe('access_denied');
  expect(rp.callbacks.at(-1)?.get('code')).toBeNull();
});

test('bad claims text shows the reason on the form; corrected, it signs in', async ({
  page,
  server,
}) => {
  await page.goto(authorizeUrl(server.url));
  await page.getByLabel('Extra ID token claims').fill('{"sub": "someone-else"}');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText(/claim sub is set by the server/);
  await expectNoAxeViolations(page, 'login page with an error');
  await page.getByLabel('Extra ID token claims').fill('');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Back at the app' })).toBeVisible();
  expect(rp.callbacks.at(-1)?.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
});

test('the page has no script, refuses injected inline script and passes axe', async ({
  page,
  server,
}) => {
  const response = await page.goto(authorizeUrl(server.url));
  expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true;';
    document.body.append(script);
    return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
  });
  expect(ran).toBe(false);
  expect(await page.locator('script').count()).toBe(1); // only the one injected above
  await expectNoAxeViolations(page, 'login page');
});
