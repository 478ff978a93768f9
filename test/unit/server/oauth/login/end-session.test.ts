/**
 * GET and POST /api/oauth/end-session (OpenID Connect RP-Initiated Logout 1.0): the hint is
 * checked, the post-logout URI must be registered for the client, the subject's grants at that
 * client are revoked, and nothing is redirected on a bad hint or URI.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { OAuthHarness, TokenSet } from '#test/oauth-context.js';
import { desktopTokens, oauthHarness, postForm } from '#test/oauth-context.js';

const BACK = 'http://127.0.0.1:4567/logged-out';
let h: OAuthHarness;
let t: TokenSet;
beforeEach(async () => {
  h = await oauthHarness(
    {},
    {
      oauth: {
        clients: [
          {
            client_id: 'desktop-app',
            loopback_redirect_paths: ['/callback'],
            post_logout_redirect_uris: [BACK],
          },
        ],
      },
    },
  );
  t = await desktopTokens(h);
});
afterEach(async () => {
  await h.close();
});

const end = (params: Record<string, string>) =>
  h.app.inject({
    method: 'GET',
    url: `/api/oauth/end-session?${new URLSearchParams(params).toString()}`,
  });

const refresh = () =>
  postForm(h.app, '/api/oauth/token', {
    grant_type: 'refresh_token',
    client_id: 'desktop-app',
    refresh_token: t.refresh_token,
  });

it('a valid hint and a registered URI: 302 there with state, and the grant is revoked', async () => {
  const res = await end({ id_token_hint: t.id_token, post_logout_redirect_uri: BACK, state: 's9' });
  expect(res.statusCode).toBe(302);
  expect(res.headers.location).toBe(`${BACK}?state=s9`);
  expect((await refresh()).json()).toMatchObject({ code: 'REFRESH_TOKEN_REVOKED' });
});

it('accepts POST with a form body as well', async () => {
  const res = await postForm(h.app, '/api/oauth/end-session', {
    id_token_hint: t.id_token,
    post_logout_redirect_uri: BACK,
  });
  expect(res.statusCode).toBe(302);
});

it('an expired hint is still accepted (RP-Initiated Logout §2)', async () => {
  h.advance(2 * 3600 * 1000);
  expect((await end({ id_token_hint: t.id_token })).statusCode).toBe(200);
});

it('without a URI: the signed-out page, CSP and no script', async () => {
  const res = await end({});
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.body).toContain('Signed out');
  expect(res.body).not.toMatch(/<script/i);
  expect((await refresh()).statusCode).toBe(200); // no hint: nothing revoked
});

it.each([
  [
    'an unregistered URI',
    { post_logout_redirect_uri: 'https://evil.test/' },
    'POST_LOGOUT_REDIRECT_URI_UNREGISTERED',
  ],
  ['a URI without hint or client_id', { post_logout_redirect_uri: BACK }, 'PARAMETER_MISSING'],
  ['a tampered hint', { id_token_hint: 'x.y.z' }, 'ID_TOKEN_HINT_INVALID'],
  ['a client_id other than the hint audience', { client_id: 'qa-web' }, 'CLIENT_MISMATCH'],
])('%s is a 400 error body, never a redirect', async (_w, params, code) => {
  const withHint =
    code === 'POST_LOGOUT_REDIRECT_URI_UNREGISTERED' || code === 'CLIENT_MISMATCH'
      ? { id_token_hint: t.id_token, ...params }
      : params;
  const res = await end(withHint);
  expect(res.statusCode).toBe(400);
  expect(res.headers.location).toBeUndefined();
  expect(res.json()).toMatchObject({ error: 'invalid_request', code });
  expect((await refresh()).statusCode).toBe(200);
});

it('a hint signed with another key is refused', async () => {
  const [head, body] = t.id_token.split('.');
  const res = await end({ id_token_hint: `${head}.${body}.${'A'.repeat(43)}` });
  expect(res.json()).toMatchObject({ code: 'ID_TOKEN_HINT_INVALID' });
});
