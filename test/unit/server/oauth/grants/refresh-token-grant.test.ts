/**
 * The refresh_token grant, rule T-28: rotation on every use, reuse detection that
 * revokes the grant, client binding, no scope widening.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { OAuthHarness, TokenSet } from '#test/oauth-context.js';
import { harnessWithTokens, postForm, QA_SECRET } from '#test/oauth-context.js';

const TOKEN = '/api/oauth/token';
let h: OAuthHarness;
let t: TokenSet;

beforeEach(async () => ({ h, t } = await harnessWithTokens()));
afterEach(() => h.close());

function refresh(
  token: string,
  extra: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return postForm(h.app, TOKEN, {
    grant_type: 'refresh_token',
    client_id: 'desktop-app',
    refresh_token: token,
    ...extra,
  });
}

function expectGrantError(res: LightMyRequestResponse, error: string, code: string): void {
  expect(res.statusCode).toBe(400);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.json()).toMatchObject({ ok: false, error, code });
}

it('T-28 a refresh returns new tokens and rotates the refresh token', async () => {
  const res = await refresh(t.refresh_token);
  expect(res.statusCode).toBe(200);
  const next = res.json<TokenSet>();
  expect(next.refresh_token).not.toBe(t.refresh_token);
  expect(next.access_token).not.toBe(t.access_token);
  expect((await refresh(next.refresh_token)).statusCode).toBe(200);
});

it('T-28 reuse of a rotated refresh token is invalid_grant and revokes the whole grant', async () => {
  const next = (await refresh(t.refresh_token)).json<TokenSet>();
  expectGrantError(await refresh(t.refresh_token), 'invalid_grant', 'REFRESH_TOKEN_REUSED');
  expectGrantError(await refresh(next.refresh_token), 'invalid_grant', 'REFRESH_TOKEN_REVOKED');
});

it('T-28 a refresh token of another client is invalid_grant', async () => {
  const res = await postForm(h.app, TOKEN, {
    grant_type: 'refresh_token',
    client_id: 'qa-web',
    client_secret: QA_SECRET,
    refresh_token: t.refresh_token,
  });
  expectGrantError(res, 'invalid_grant', 'REFRESH_TOKEN_OTHER_CLIENT');
  expect((await refresh(t.refresh_token)).statusCode).toBe(200); // nothing was revoked
});

it('T-28 a wider scope is invalid_scope', async () => {
  expectGrantError(
    await refresh(t.refresh_token, { scope: 'openid email' }),
    'invalid_scope',
    'SCOPE_WIDENED',
  );
});

it('T-28 a narrower or equal scope is granted', async () => {
  const res = await refresh(t.refresh_token, { scope: 'openid' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ scope: 'openid' });
});

it('T-28 a malformed scope is invalid_scope', async () => {
  expectGrantError(
    await refresh(t.refresh_token, { scope: 'open"id' }),
    'invalid_scope',
    'SCOPE_INVALID',
  );
});

it('T-28 an access token used as a refresh token is invalid_grant', async () => {
  expectGrantError(await refresh(t.access_token), 'invalid_grant', 'REFRESH_TOKEN_INVALID');
});

it('T-28 a tampered refresh token is invalid_grant', async () => {
  const tampered = `${t.refresh_token.slice(0, -2)}${t.refresh_token.endsWith('A') ? 'BB' : 'AA'}`;
  expectGrantError(await refresh(tampered), 'invalid_grant', 'REFRESH_TOKEN_INVALID');
});

it('T-28 a garbage refresh token is invalid_grant', async () => {
  expectGrantError(await refresh('not a token'), 'invalid_grant', 'REFRESH_TOKEN_INVALID');
});

it('T-28 an expired refresh token (24 h) is invalid_grant', async () => {
  h.advance(86_400_000);
  expectGrantError(await refresh(t.refresh_token), 'invalid_grant', 'REFRESH_TOKEN_EXPIRED');
});

it('T-28 a missing refresh_token is 400 invalid_request', async () => {
  const res = await postForm(h.app, TOKEN, {
    grant_type: 'refresh_token',
    client_id: 'desktop-app',
  });
  expectGrantError(res, 'invalid_request', 'PARAMETER_MISSING');
});

it('T-28 the refresh token still needs client authentication: 401 invalid_client', async () => {
  const res = await postForm(h.app, TOKEN, {
    grant_type: 'refresh_token',
    refresh_token: t.refresh_token,
  });
  expect(res.statusCode).toBe(401);
  expect(res.json()).toMatchObject({ error: 'invalid_client' });
});

it('T-28 two concurrent refreshes with one token: one 200, one reuse, and the grant is revoked', async () => {
  const [a, b] = await Promise.all([refresh(t.refresh_token), refresh(t.refresh_token)]);
  const statuses = [a.statusCode, b.statusCode].sort();
  expect(statuses).toEqual([200, 400]);
  const winner = a.statusCode === 200 ? a : b;
  const loser = a.statusCode === 200 ? b : a;
  expect(loser.json()).toMatchObject({ error: 'invalid_grant', code: 'REFRESH_TOKEN_REUSED' });
  const next = winner.json<TokenSet>();
  expectGrantError(await refresh(next.refresh_token), 'invalid_grant', 'REFRESH_TOKEN_REVOKED');
});
