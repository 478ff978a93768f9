/**
 * POST /api/oauth/introspect (RFC 7662): client authentication required, own tokens only,
 * revocation and rotation visible at once.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { OAuthHarness, TokenSet } from '#test/oauth-context.js';
import { basic, harnessWithTokens, postForm, QA_SECRET, TEST_ISSUER } from '#test/oauth-context.js';

const INTROSPECT = '/api/oauth/introspect';
let h: OAuthHarness;
let t: TokenSet;
beforeEach(async () => ({ h, t } = await harnessWithTokens()));
afterEach(() => h.close());

it('an active access token reports scope, client, subject, times, issuer and Bearer', async () => {
  const res = await postForm(h.app, INTROSPECT, {
    client_id: 'desktop-app',
    token: t.access_token,
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  const nowSec = Math.floor(h.clock.now() / 1000);
  expect(res.json()).toEqual({
    active: true,
    scope: 'openid',
    client_id: 'desktop-app',
    sub: 'demo-user',
    iat: nowSec,
    exp: nowSec + 3600,
    iss: TEST_ISSUER,
    token_type: 'Bearer',
  });
});

it('an active refresh token reports token_type refresh_token', async () => {
  const res = await postForm(h.app, INTROSPECT, {
    client_id: 'desktop-app',
    token: t.refresh_token,
  });
  expect(res.json()).toMatchObject({ active: true, token_type: 'refresh_token' });
});

it('an expired access token is inactive', async () => {
  h.advance(3_600_000);
  const res = await postForm(h.app, INTROSPECT, {
    client_id: 'desktop-app',
    token: t.access_token,
  });
  expect(res.json()).toEqual({ active: false });
});

it('a garbage token is inactive', async () => {
  const res = await postForm(h.app, INTROSPECT, { client_id: 'desktop-app', token: 'garbage' });
  expect(res.json()).toEqual({ active: false });
});

it('a rotated-out refresh token is inactive', async () => {
  await postForm(h.app, '/api/oauth/token', {
    grant_type: 'refresh_token',
    client_id: 'desktop-app',
    refresh_token: t.refresh_token,
  });
  const res = await postForm(h.app, INTROSPECT, {
    client_id: 'desktop-app',
    token: t.refresh_token,
  });
  expect(res.json()).toEqual({ active: false });
});

it('a token of another client is inactive for the caller (RFC 7662 §4)', async () => {
  const res = await postForm(
    h.app,
    INTROSPECT,
    { token: t.access_token },
    { authorization: basic('qa-web', QA_SECRET) },
  );
  expect(res.json()).toEqual({ active: false });
});

it('introspection without client authentication is 401 invalid_client', async () => {
  const res = await postForm(h.app, INTROSPECT, { token: t.access_token });
  expect(res.statusCode).toBe(401);
  expect(res.json()).toMatchObject({
    ok: false,
    error: 'invalid_client',
    code: 'CLIENT_AUTH_MISSING',
  });
});

it('a missing token is 400 invalid_request', async () => {
  const res = await postForm(h.app, INTROSPECT, { client_id: 'desktop-app' });
  expect(res.statusCode).toBe(400);
  expect(res.json()).toMatchObject({ error: 'invalid_request', code: 'PARAMETER_MISSING' });
});

it('a text/plain body is 400 invalid_request', async () => {
  const res = await h.app.inject({
    method: 'POST',
    url: INTROSPECT,
    headers: { 'content-type': 'text/plain' },
    payload: 'token=x',
  });
  expect(res.statusCode).toBe(400);
  expect(res.json()).toMatchObject({ code: 'UNSUPPORTED_CONTENT_TYPE' });
});
