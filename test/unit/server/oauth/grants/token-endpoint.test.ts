/**
 * POST /api/oauth/token, rules T-01 … T-28 (docs/PROTOCOL.md §4). One named test per
 * refusal; every answer is checked for its status, RFC error code and stable code.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { MintedCode } from '#server/oauth/grants/mint-code.js';
import type { OAuthHarness } from '#test/oauth-context.js';
import { postJson } from '#test/post-json.js';
import {
  basic,
  DESKTOP_REDIRECT,
  desktopTokens,
  oauthHarness,
  postForm,
  QA_REDIRECT,
  QA_SECRET,
} from '#test/oauth-context.js';

const TOKEN = '/api/oauth/token';
let h: OAuthHarness;

beforeEach(async () => {
  h = await oauthHarness();
});
afterEach(async () => {
  await h.close();
});

function desktopCode(extra: { nonce?: string; scope?: string } = {}): MintedCode {
  return h.module.api.mintCode({
    client_id: 'desktop-app',
    redirect_uri: DESKTOP_REDIRECT,
    ...extra,
  });
}

function redeemParams(m: MintedCode): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    client_id: m.client_id,
    code: m.code,
    redirect_uri: m.redirect_uri,
    code_verifier: m.code_verifier ?? '',
  };
}

function expectError(
  res: LightMyRequestResponse,
  status: number,
  error: string,
  code: string,
): void {
  expect(res.statusCode).toBe(status);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.json()).toMatchObject({ ok: false, error, code });
}

async function introspectActive(token: string): Promise<boolean> {
  const res = await postForm(h.app, '/api/oauth/introspect', { client_id: 'desktop-app', token });
  return res.json<{ active: boolean }>().active;
}

describe('T-01 body types', () => {
  it('T-01 accepts application/x-www-form-urlencoded', async () => {
    const res = await postForm(h.app, TOKEN, redeemParams(desktopCode()));
    expect(res.statusCode).toBe(200);
  });

  it('T-01 accepts application/json', async () => {
    const res = await postJson(h.app, TOKEN, redeemParams(desktopCode()));
    expect(res.statusCode).toBe(200);
  });

  it('T-01 refuses text/plain with 400 invalid_request', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: TOKEN,
      headers: { 'content-type': 'text/plain' },
      payload: new URLSearchParams(redeemParams(desktopCode())).toString(),
    });
    expectError(res, 400, 'invalid_request', 'UNSUPPORTED_CONTENT_TYPE');
  });

  it('T-01 refuses a body without Content-Type with 400 invalid_request', async () => {
    const res = await h.app.inject({ method: 'POST', url: TOKEN, payload: 'grant_type=x' });
    expectError(res, 400, 'invalid_request', 'UNSUPPORTED_CONTENT_TYPE');
  });

  it('T-01 refuses malformed JSON with 400 invalid_request', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: TOKEN,
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type":',
    });
    expectError(res, 400, 'invalid_request', 'BODY_MALFORMED');
  });

  it('T-01 refuses a JSON array body with 400 invalid_request', async () => {
    const res = await postJson(h.app, TOKEN, [redeemParams(desktopCode())]);
    expectError(res, 400, 'invalid_request', 'BODY_MALFORMED');
  });
});

it('T-02 oversize body (over 16 KiB) is 400 invalid_request', async () => {
  const params = { ...redeemParams(desktopCode()), pad: 'x'.repeat(17 * 1024) };
  const res = await postForm(h.app, TOKEN, params);
  expectError(res, 400, 'invalid_request', 'BODY_TOO_LARGE');
});

it('T-03 missing grant_type is 400 invalid_request', async () => {
  const { grant_type: _g, ...rest } = redeemParams(desktopCode());
  expectError(await postForm(h.app, TOKEN, rest), 400, 'invalid_request', 'GRANT_TYPE_MISSING');
});

it('T-03 unknown grant_type is 400 unsupported_grant_type', async () => {
  const params = { ...redeemParams(desktopCode()), grant_type: 'password' };
  const res = await postForm(h.app, TOKEN, params);
  expectError(res, 400, 'unsupported_grant_type', 'GRANT_TYPE_UNSUPPORTED');
});

it('T-04 missing code is 400 invalid_request', async () => {
  const { code: _c, ...rest } = redeemParams(desktopCode());
  expectError(await postForm(h.app, TOKEN, rest), 400, 'invalid_request', 'PARAMETER_MISSING');
});

it('T-04 empty code counts as omitted: 400 invalid_request', async () => {
  const params = { ...redeemParams(desktopCode()), code: '' };
  expectError(await postForm(h.app, TOKEN, params), 400, 'invalid_request', 'PARAMETER_MISSING');
});

describe('T-05 non-string values are malformed, never coerced', () => {
  it.each([
    ['number', 5],
    ['array', ['a']],
    ['object', { a: 1 }],
    ['boolean', true],
    ['null', null],
  ])('T-05 a %s code is 400 invalid_request', async (_kind, value) => {
    const res = await postJson(h.app, TOKEN, { ...redeemParams(desktopCode()), code: value });
    expectError(res, 400, 'invalid_request', 'PARAMETER_NOT_STRING');
  });

  it('T-05 a numeric grant_type is 400 invalid_request', async () => {
    const res = await postJson(h.app, TOKEN, { ...redeemParams(desktopCode()), grant_type: 1 });
    expectError(res, 400, 'invalid_request', 'PARAMETER_NOT_STRING');
  });
});

it('T-06 unknown parameters are ignored', async () => {
  const params = { ...redeemParams(desktopCode()), foo: 'bar', audience: 'x' };
  expect((await postForm(h.app, TOKEN, params)).statusCode).toBe(200);
});

it('T-07 a repeated form parameter is 400 invalid_request', async () => {
  const m = desktopCode();
  const body = `${new URLSearchParams(redeemParams(m)).toString()}&code=${m.code}`;
  const res = await h.app.inject({
    method: 'POST',
    url: TOKEN,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body,
  });
  expectError(res, 400, 'invalid_request', 'DUPLICATE_PARAMETER');
});

describe('T-08 client authentication', () => {
  const qaCode = (): MintedCode => h.module.api.mintCode({ client_id: 'qa-web' });

  it('T-08 client_secret_basic authenticates a confidential client', async () => {
    const { client_id: _id, ...params } = redeemParams(qaCode());
    const res = await postForm(h.app, TOKEN, params, { authorization: basic('qa-web', QA_SECRET) });
    expect(res.statusCode).toBe(200);
  });

  it('T-08 client_secret_post authenticates a confidential client', async () => {
    const params = { ...redeemParams(qaCode()), client_secret: QA_SECRET };
    expect((await postForm(h.app, TOKEN, params)).statusCode).toBe(200);
  });

  it('T-08 Basic credentials are form-url-decoded', async () => {
    const secret = 'a secret with spaces+plus:colon/%-0123456789';
    h.module.api.registerClient({
      client_id: 'odd:id+1',
      client_secret: secret,
      redirect_uris: [QA_REDIRECT],
    });
    const m = h.module.api.mintCode({ client_id: 'odd:id+1' });
    const { client_id: _id, ...params } = redeemParams(m);
    const res = await postForm(h.app, TOKEN, params, { authorization: basic('odd:id+1', secret) });
    expect(res.statusCode).toBe(200);
  });

  it('T-08 two authentication mechanisms are 400 invalid_request', async () => {
    const params = { ...redeemParams(qaCode()), client_secret: QA_SECRET };
    const res = await postForm(h.app, TOKEN, params, { authorization: basic('qa-web', QA_SECRET) });
    expectError(res, 400, 'invalid_request', 'CLIENT_AUTH_MULTIPLE');
  });

  it('T-08 a wrong Basic secret is 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const { client_id: _id, ...params } = redeemParams(qaCode());
    const auth = basic('qa-web', `${QA_SECRET}x`);
    const res = await postForm(h.app, TOKEN, params, { authorization: auth });
    expectError(res, 401, 'invalid_client', 'CLIENT_SECRET_INVALID');
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
  });

  it('T-08 an unknown Basic client is 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const { client_id: _id, ...params } = redeemParams(qaCode());
    const res = await postForm(h.app, TOKEN, params, { authorization: basic('nobody', QA_SECRET) });
    expectError(res, 401, 'invalid_client', 'CLIENT_UNKNOWN');
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
  });

  it('T-08 malformed Basic credentials are 401 invalid_client', async () => {
    const { client_id: _id, ...params } = redeemParams(qaCode());
    const res = await postForm(h.app, TOKEN, params, { authorization: 'Basic !!!' });
    expectError(res, 401, 'invalid_client', 'CLIENT_AUTH_MALFORMED');
  });

  it('T-08 a wrong client_secret in the body is 401 without a Basic challenge', async () => {
    const params = { ...redeemParams(qaCode()), client_secret: 'wrong' };
    const res = await postForm(h.app, TOKEN, params);
    expectError(res, 401, 'invalid_client', 'CLIENT_SECRET_INVALID');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('T-08 a confidential client without its secret is 401 invalid_client', async () => {
    const res = await postForm(h.app, TOKEN, redeemParams(qaCode()));
    expectError(res, 401, 'invalid_client', 'CLIENT_SECRET_INVALID');
  });

  it('T-08 an unknown client_id is 401 invalid_client', async () => {
    const params = { ...redeemParams(desktopCode()), client_id: 'nobody' };
    expectError(await postForm(h.app, TOKEN, params), 401, 'invalid_client', 'CLIENT_UNKNOWN');
  });

  it('T-08 a public client sending a secret is 401 invalid_client', async () => {
    const params = { ...redeemParams(desktopCode()), client_secret: QA_SECRET };
    const res = await postForm(h.app, TOKEN, params);
    expectError(res, 401, 'invalid_client', 'CLIENT_SECRET_INVALID');
  });

  it('T-08 Basic and a different body client_id is 400 invalid_request', async () => {
    const params = { ...redeemParams(qaCode()), client_id: 'desktop-app' };
    const res = await postForm(h.app, TOKEN, params, { authorization: basic('qa-web', QA_SECRET) });
    expectError(res, 400, 'invalid_request', 'CLIENT_MISMATCH');
  });
});

it('T-09 a public client must send client_id: 401 invalid_client', async () => {
  const { client_id: _id, ...rest } = redeemParams(desktopCode());
  expectError(await postForm(h.app, TOKEN, rest), 401, 'invalid_client', 'CLIENT_AUTH_MISSING');
});

it('T-10 an unknown code is 400 invalid_grant', async () => {
  const params = { ...redeemParams(desktopCode()), code: 'A'.repeat(43) };
  expectError(await postForm(h.app, TOKEN, params), 400, 'invalid_grant', 'CODE_UNKNOWN');
});

it('T-11 a code issued to another client is 400 invalid_grant', async () => {
  const m = h.module.api.mintCode({ client_id: 'qa-web' });
  const params = { ...redeemParams(m), client_id: 'desktop-app' };
  expectError(await postForm(h.app, TOKEN, params), 400, 'invalid_grant', 'CODE_OTHER_CLIENT');
});

describe('T-12 code lifetime is 60 s', () => {
  it('T-12 a code redeemed 59.999 s after issue works', async () => {
    const m = desktopCode();
    h.advance(59_999);
    expect((await postForm(h.app, TOKEN, redeemParams(m))).statusCode).toBe(200);
  });

  it('T-12 an expired code (60 s) is 400 invalid_grant', async () => {
    const m = desktopCode();
    h.advance(60_000);
    const res = await postForm(h.app, TOKEN, redeemParams(m));
    expectError(res, 400, 'invalid_grant', 'CODE_EXPIRED');
  });
});

describe('T-13 redirect_uri', () => {
  it('T-13 a different redirect_uri is 400 invalid_grant', async () => {
    const params = {
      ...redeemParams(desktopCode()),
      redirect_uri: 'http://127.0.0.1:9999/callback',
    };
    const res = await postForm(h.app, TOKEN, params);
    expectError(res, 400, 'invalid_grant', 'REDIRECT_URI_MISMATCH');
  });

  it('T-13 a missing redirect_uri is 400 invalid_request (RFC 6749 clients, the default)', async () => {
    const { redirect_uri: _r, ...rest } = redeemParams(desktopCode());
    const res = await postForm(h.app, TOKEN, rest);
    expectError(res, 400, 'invalid_request', 'REDIRECT_URI_MISSING');
  });

  it('T-13 a client registered as OAuth 2.1 may omit redirect_uri', async () => {
    h.module.api.registerClient({
      client_id: 'oauth21-app',
      loopback_redirect_paths: ['/cb'],
      require_redirect_uri_at_token: false,
    });
    const m = h.module.api.mintCode({ client_id: 'oauth21-app' });
    const { redirect_uri: _r, ...rest } = redeemParams(m);
    expect((await postForm(h.app, TOKEN, rest)).statusCode).toBe(200);
  });
});

describe('T-14 code_verifier syntax', () => {
  it.each([
    ['too short (42)', 'a'.repeat(42)],
    ['too long (129)', 'a'.repeat(129)],
    ['a forbidden character', `${'a'.repeat(43)}+`],
  ])('T-14 a verifier %s is 400 invalid_request', async (_what, verifier) => {
    const params = { ...redeemParams(desktopCode()), code_verifier: verifier };
    const res = await postForm(h.app, TOKEN, params);
    expectError(res, 400, 'invalid_request', 'PKCE_VERIFIER_MALFORMED');
  });
});

it('T-15 a bound challenge without a verifier is 400 invalid_grant', async () => {
  const { code_verifier: _v, ...rest } = redeemParams(desktopCode());
  expectError(await postForm(h.app, TOKEN, rest), 400, 'invalid_grant', 'PKCE_VERIFIER_MISSING');
});

it('T-16 a verifier that does not match the S256 challenge is 400 invalid_grant', async () => {
  const params = { ...redeemParams(desktopCode()), code_verifier: 'b'.repeat(43) };
  const res = await postForm(h.app, TOKEN, params);
  expectError(res, 400, 'invalid_grant', 'PKCE_VERIFIER_MISMATCH');
});

it('T-17 a verifier sent for a code without a challenge is 400 invalid_grant', async () => {
  const m = h.module.api.mintCode({ client_id: 'qa-web', pkce: false });
  const params = { ...redeemParams(m), code_verifier: 'c'.repeat(43), client_secret: QA_SECRET };
  expectError(await postForm(h.app, TOKEN, params), 400, 'invalid_grant', 'PKCE_NOT_BOUND');
});

it('T-18 a public client cannot mint a code without a S256 challenge', () => {
  expect(() => h.module.api.mintCode({ client_id: 'desktop-app', pkce: false })).toThrow(
    expect.objectContaining({ code: 'PKCE_REQUIRED' }) as Error,
  );
});

it('T-19 atomic single use: 100 concurrent redemptions (in-process), exactly one 200', async () => {
  const params = redeemParams(desktopCode());
  const all = await Promise.all(Array.from({ length: 100 }, () => postForm(h.app, TOKEN, params)));
  const statuses = all.map((r) => r.statusCode);
  expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  expect(statuses.filter((s) => s === 400)).toHaveLength(99);
  for (const r of all.filter((x) => x.statusCode === 400)) {
    expect(r.json()).toMatchObject({ error: 'invalid_grant', code: 'CODE_REUSED' });
  }
});

it('T-20 a valid replay is 400 invalid_grant and revokes every token issued from the code', async () => {
  const m = desktopCode();
  const first = (await postForm(h.app, TOKEN, redeemParams(m))).json<{
    access_token: string;
    refresh_token: string;
  }>();
  expect(await introspectActive(first.access_token)).toBe(true);
  const replay = await postForm(h.app, TOKEN, redeemParams(m));
  expectError(replay, 400, 'invalid_grant', 'CODE_REUSED');
  expect(await introspectActive(first.access_token)).toBe(false);
  expect(await introspectActive(first.refresh_token)).toBe(false);
  const refresh = await postForm(h.app, TOKEN, {
    grant_type: 'refresh_token',
    client_id: 'desktop-app',
    refresh_token: first.refresh_token,
  });
  expectError(refresh, 400, 'invalid_grant', 'REFRESH_TOKEN_REVOKED');
});

describe('T-21 an invalid replay revokes nothing', () => {
  it('T-21 a replay with a wrong verifier is invalid_grant and the tokens stay active', async () => {
    const m = desktopCode();
    const first = (await postForm(h.app, TOKEN, redeemParams(m))).json<{ access_token: string }>();
    const replay = await postForm(h.app, TOKEN, {
      ...redeemParams(m),
      code_verifier: 'd'.repeat(43),
    });
    expectError(replay, 400, 'invalid_grant', 'PKCE_VERIFIER_MISMATCH');
    expect(await introspectActive(first.access_token)).toBe(true);
  });

  it('T-21 a replay with wrong client authentication is 401 and the tokens stay active', async () => {
    const m = h.module.api.mintCode({ client_id: 'qa-web' });
    const ok = { ...redeemParams(m), client_secret: QA_SECRET };
    const first = (await postForm(h.app, TOKEN, ok)).json<{ access_token: string }>();
    const replay = await postForm(h.app, TOKEN, { ...ok, client_secret: 'nope' });
    expectError(replay, 401, 'invalid_client', 'CLIENT_SECRET_INVALID');
    const intro = await postForm(h.app, '/api/oauth/introspect', {
      client_id: 'qa-web',
      client_secret: QA_SECRET,
      token: first.access_token,
    });
    expect(intro.json()).toMatchObject({ active: true });
  });
});

it('T-22 consume on success: a failed attempt does not burn the code', async () => {
  const m = desktopCode();
  const bad = await postForm(h.app, TOKEN, { ...redeemParams(m), code_verifier: 'e'.repeat(43) });
  expect(bad.statusCode).toBe(400);
  expect((await postForm(h.app, TOKEN, redeemParams(m))).statusCode).toBe(200);
});

it('T-23 the 200 response is no-store JSON with Bearer, integer expires_in and all tokens', async () => {
  const res = await postForm(h.app, TOKEN, redeemParams(desktopCode({ scope: 'openid profile' })));
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['pragma']).toBe('no-cache');
  const body = res.json<Record<string, unknown>>();
  expect(body['token_type']).toBe('Bearer');
  expect(Number.isInteger(body['expires_in'])).toBe(true);
  expect(body['expires_in']).toBe(3600);
  expect(body['scope']).toBe('openid profile');
  for (const k of ['access_token', 'refresh_token', 'id_token'])
    expect(typeof body[k]).toBe('string');
});

it('T-24 token values are Bearer-safe b64token and unique', async () => {
  const b64token = /^[A-Za-z0-9\-._~+/]+=*$/;
  const a = await desktopTokens(h);
  const b = await desktopTokens(h);
  for (const t of [a.access_token, a.refresh_token, a.id_token]) expect(t).toMatch(b64token);
  expect(new Set([a.access_token, a.refresh_token, b.access_token, b.refresh_token]).size).toBe(4);
  const header: unknown = JSON.parse(
    Buffer.from(a.access_token.split('.')[0] ?? '', 'base64url').toString(),
  );
  expect(header).toEqual({ alg: 'dir', enc: 'A256GCM' });
  expect(a.access_token.split('.')).toHaveLength(5); // JWE compact
});

it('T-25 error bodies carry the RFC code in error and a one-line description of allowed characters', async () => {
  const params = { ...redeemParams(desktopCode()), code: 'x\r\ny' };
  const res = await postForm(h.app, TOKEN, params);
  const body = res.json<Record<string, string>>();
  expect(body['error']).toBe('invalid_grant');
  expect(body['error_description']).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
  expect(body['code']).toBe('CODE_UNKNOWN');
  expect(body['ok']).toBe(false);
});

it('T-26 an invalid code is 400 invalid_grant, not 401 (RFC 6749 §5.2)', async () => {
  const params = { ...redeemParams(desktopCode()), code: 'nope' };
  expect((await postForm(h.app, TOKEN, params)).statusCode).toBe(400);
});

it('T-27 error responses carry Cache-Control: no-store and Pragma: no-cache', async () => {
  const res = await postForm(h.app, TOKEN, { grant_type: 'authorization_code' });
  expect(res.statusCode).toBe(401);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['pragma']).toBe('no-cache');
});
