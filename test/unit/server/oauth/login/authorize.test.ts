/**
 * GET /api/oauth/authorize (RFC 6749 §4.1.1, §4.1.2.1): immediate approval for QA, exact
 * redirect URIs (RFC 8252 §7.3 loopback ports), PKCE S256 only (T-18), errors redirected only
 * to a verified redirect URI.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { s256 } from '#server/oauth/grants/pkce.js';
import type { OAuthHarness } from '#test/oauth-context.js';
import { oauthHarness, postForm, QA_REDIRECT, TEST_ISSUER } from '#test/oauth-context.js';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'; // RFC 7636 Appendix B
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'http://127.0.0.1:53682/callback';

let h: OAuthHarness;
beforeEach(async () => {
  h = await oauthHarness();
});
afterEach(async () => {
  await h.close();
});

function good(): Record<string, string> {
  return {
    response_type: 'code',
    client_id: 'desktop-app',
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: 'st-1',
    nonce: 'no-1',
    scope: 'openid profile',
    login_hint: 'alice',
  };
}

function get(params: Record<string, string> | string): Promise<LightMyRequestResponse> {
  const q = typeof params === 'string' ? params : new URLSearchParams(params).toString();
  return h.app.inject({ method: 'GET', url: `/api/oauth/authorize?${q}` });
}

function redirected(res: LightMyRequestResponse): URL {
  expect(res.statusCode).toBe(302);
  return new URL(String(res.headers.location));
}

function expectRedirectError(res: LightMyRequestResponse, error: string): URL {
  const url = redirected(res);
  expect(url.origin + url.pathname).toBe(REDIRECT);
  expect(url.searchParams.get('error')).toBe(error);
  expect(url.searchParams.get('state')).toBe('st-1');
  expect(url.searchParams.get('iss')).toBe(TEST_ISSUER);
  expect(url.searchParams.get('code')).toBeNull();
  return url;
}

it('RFC 7636 Appendix B: the S256 example pair matches', () => {
  expect(s256(VERIFIER)).toBe(CHALLENGE);
});

it('approves at once and redirects with code, state and iss (RFC 9207)', async () => {
  const url = redirected(await get(good()));
  expect(url.origin + url.pathname).toBe(REDIRECT);
  expect(url.searchParams.get('state')).toBe('st-1');
  expect(url.searchParams.get('iss')).toBe(TEST_ISSUER);
  expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
});

it('the code is bound to the request: it redeems with the verifier and carries nonce and scope', async () => {
  const code = redirected(await get({ ...good(), login_hint: 'bob' })).searchParams.get('code');
  const res = await postForm(h.app, '/api/oauth/token', {
    grant_type: 'authorization_code',
    client_id: 'desktop-app',
    code: code ?? '',
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
  });
  expect(res.statusCode).toBe(200);
  const body = res.json<{ id_token: string; scope: string }>();
  expect(body.scope).toBe('openid profile');
  const claims = JSON.parse(
    Buffer.from(body.id_token.split('.')[1] ?? '', 'base64url').toString(),
  ) as Record<string, unknown>;
  expect(claims).toMatchObject({ sub: 'bob', nonce: 'no-1', aud: 'desktop-app' });
});

it('any loopback port is accepted for desktop-app (RFC 8252 §7.3)', async () => {
  const res = await get({ ...good(), redirect_uri: 'http://127.0.0.1:1/callback' });
  expect(redirected(res).searchParams.get('code')).not.toBeNull();
});

describe('refusals that are never redirected (400 error body)', () => {
  it('an unknown client_id is 400', async () => {
    const res = await get({ ...good(), client_id: 'nobody' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      ok: false,
      error: 'invalid_request',
      code: 'CLIENT_UNKNOWN',
    });
  });

  it('a missing client_id is 400', async () => {
    const { client_id: _c, ...rest } = good();
    expect((await get(rest)).json()).toMatchObject({ code: 'PARAMETER_MISSING' });
  });

  it('a missing redirect_uri is 400', async () => {
    const { redirect_uri: _r, ...rest } = good();
    const res = await get(rest);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'REDIRECT_URI_MISSING' });
  });

  it.each([
    ['another path', 'http://127.0.0.1:53682/other'],
    ['localhost instead of 127.0.0.1', 'http://localhost:53682/callback'],
    ['a query string', 'http://127.0.0.1:53682/callback?x=1'],
    ['https', 'https://127.0.0.1:53682/callback'],
    ['port 0', 'http://127.0.0.1:0/callback'],
  ])('an unregistered redirect_uri (%s) is 400', async (_what, uri) => {
    const res = await get({ ...good(), redirect_uri: uri });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_request',
      code: 'REDIRECT_URI_UNREGISTERED',
    });
  });

  it('a redirect_uri registered for another client is 400', async () => {
    const res = await get({ ...good(), redirect_uri: QA_REDIRECT });
    expect(res.json()).toMatchObject({ code: 'REDIRECT_URI_UNREGISTERED' });
  });

  it('a repeated client_id is 400', async () => {
    const res = await get(`${new URLSearchParams(good()).toString()}&client_id=desktop-app`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'DUPLICATE_PARAMETER' });
  });
});

describe('refusals redirected to the verified redirect_uri (RFC 6749 §4.1.2.1)', () => {
  it('a missing response_type is invalid_request', async () => {
    const { response_type: _r, ...rest } = good();
    expectRedirectError(await get(rest), 'invalid_request');
  });

  it('response_type token is unsupported_response_type', async () => {
    expectRedirectError(
      await get({ ...good(), response_type: 'token' }),
      'unsupported_response_type',
    );
  });

  it('T-18 code_challenge_method plain is refused with invalid_request', async () => {
    const res = await get({ ...good(), code_challenge: VERIFIER, code_challenge_method: 'plain' });
    expectRedirectError(res, 'invalid_request');
  });

  it('T-18 a challenge without a method (implicitly plain) is refused', async () => {
    const { code_challenge_method: _m, ...rest } = good();
    expectRedirectError(await get(rest), 'invalid_request');
  });

  it('a public client without code_challenge is invalid_request', async () => {
    const { code_challenge: _c, code_challenge_method: _m, ...rest } = good();
    const url = expectRedirectError(await get(rest), 'invalid_request');
    expect(url.searchParams.get('error_description')).toMatch(/code_challenge/);
  });

  it('a malformed challenge is invalid_request', async () => {
    expectRedirectError(await get({ ...good(), code_challenge: 'short' }), 'invalid_request');
  });

  it('a scope the client may not have is invalid_scope', async () => {
    expectRedirectError(await get({ ...good(), scope: 'openid admin' }), 'invalid_scope');
  });

  it('a login_hint that is not a valid subject is invalid_request', async () => {
    expectRedirectError(await get({ ...good(), login_hint: 'has space' }), 'invalid_request');
  });

  it('a repeated state is invalid_request', async () => {
    const res = await get(`${new URLSearchParams(good()).toString()}&state=again`);
    const url = redirected(res);
    expect(url.searchParams.get('error')).toBe('invalid_request');
  });

  it('an overlong nonce is invalid_request', async () => {
    expectRedirectError(await get({ ...good(), nonce: 'n'.repeat(513) }), 'invalid_request');
  });
});

describe('a loopback redirect URI is normalised once, the same way at authorize and token', () => {
  const redeem = (code: string, redirectUri: string) =>
    postForm(h.app, '/api/oauth/token', {
      grant_type: 'authorization_code',
      client_id: 'desktop-app',
      code,
      redirect_uri: redirectUri,
      code_verifier: VERIFIER,
    });

  it('a leading-zero port at authorize redeems with the port as URL parsers spell it', async () => {
    const res = await get({
      ...good(),
      login_hint: 'alice',
      redirect_uri: 'http://127.0.0.1:05000/callback',
    });
    const location = redirected(res);
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:5000/callback');
    const code = location.searchParams.get('code') ?? '';
    expect((await redeem(code, 'http://127.0.0.1:5000/callback')).statusCode).toBe(200);
  });

  it('a leading-zero port at authorize also redeems with the same spelling', async () => {
    const res = await get({
      ...good(),
      login_hint: 'alice',
      redirect_uri: 'http://127.0.0.1:05000/callback',
    });
    const code = redirected(res).searchParams.get('code') ?? '';
    expect((await redeem(code, 'http://127.0.0.1:05000/callback')).statusCode).toBe(200);
  });

  it('another port is still REDIRECT_URI_MISMATCH', async () => {
    const res = await get({
      ...good(),
      login_hint: 'alice',
      redirect_uri: 'http://127.0.0.1:05000/callback',
    });
    const code = redirected(res).searchParams.get('code') ?? '';
    const refused = await redeem(code, 'http://127.0.0.1:50000/callback');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_grant', code: 'REDIRECT_URI_MISMATCH' });
  });
});
