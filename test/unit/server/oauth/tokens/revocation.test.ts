/**
 * POST /api/oauth/revoke, rules R-01 … R-12 (RFC 7009). Every answer is 200
 * `{"ok": true}`; the effect is checked through introspection and refresh.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { OAuthHarness, TokenSet } from '#test/oauth-context.js';
import {
  basic,
  desktopTokens,
  harnessWithTokens,
  postForm,
  QA_REDIRECT,
  QA_SECRET,
} from '#test/oauth-context.js';
import { postJson } from '#test/post-json.js';

const REVOKE = '/api/oauth/revoke';
let h: OAuthHarness;
let t: TokenSet;

beforeEach(async () => ({ h, t } = await harnessWithTokens()));
afterEach(() => h.close());

function expectOk(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ ok: true });
}

async function active(
  token: string,
  client: 'desktop-app' | 'qa-web' = 'desktop-app',
): Promise<boolean> {
  const auth = client === 'qa-web' ? { authorization: basic('qa-web', QA_SECRET) } : {};
  const body = client === 'qa-web' ? { token } : { client_id: 'desktop-app', token };
  const res = await postForm(h.app, '/api/oauth/introspect', body, auth);
  return res.json<{ active: boolean }>().active;
}

/** Tokens of the confidential client qa-web (Basic at the token endpoint). */
async function qaTokens(): Promise<TokenSet> {
  const m = h.module.api.mintCode({ client_id: 'qa-web', redirect_uri: QA_REDIRECT });
  const res = await postForm(
    h.app,
    '/api/oauth/token',
    {
      grant_type: 'authorization_code',
      code: m.code,
      redirect_uri: QA_REDIRECT,
      code_verifier: m.code_verifier ?? '',
    },
    { authorization: basic('qa-web', QA_SECRET) },
  );
  if (res.statusCode !== 200) throw new Error(res.body);
  return res.json<TokenSet>();
}

function refresh(token: string): Promise<LightMyRequestResponse> {
  return postForm(h.app, '/api/oauth/token', {
    grant_type: 'refresh_token',
    client_id: 'desktop-app',
    refresh_token: token,
  });
}

describe('R-01 always 200 with a constant body', () => {
  it.each([
    ['an unknown token', 'A'.repeat(64)],
    ['garbage', '%%%not a token%%%'],
    ['a JWE-shaped forgery', 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..aaaa.bbbb.cccc'],
  ])('R-01 %s is answered 200', async (_what, token) => {
    expectOk(await postForm(h.app, REVOKE, { token }));
  });

  it('R-01 an expired token is answered 200', async () => {
    h.advance(86_400_000);
    expectOk(await postForm(h.app, REVOKE, { token: t.refresh_token }));
  });
});

it('R-02 hint access_token with a refresh token still revokes the refresh token', async () => {
  expectOk(
    await postForm(h.app, REVOKE, { token: t.refresh_token, token_type_hint: 'access_token' }),
  );
  expect((await refresh(t.refresh_token)).statusCode).toBe(400);
});

it('R-02 hint refresh_token with an access token still revokes the access token', async () => {
  expectOk(
    await postForm(h.app, REVOKE, { token: t.access_token, token_type_hint: 'refresh_token' }),
  );
  expect(await active(t.access_token)).toBe(false);
});

it('R-03 an unknown hint is ignored and the token is revoked', async () => {
  expectOk(await postForm(h.app, REVOKE, { token: t.access_token, token_type_hint: 'foobar' }));
  expect(await active(t.access_token)).toBe(false);
});

it('R-04 without a hint both kinds are tried', async () => {
  expectOk(await postJson(h.app, REVOKE, { token: t.refresh_token }));
  expect(await active(t.refresh_token)).toBe(false);
});

it('R-05 revoking a refresh token revokes every access token of its grant', async () => {
  const next = (await refresh(t.refresh_token)).json<TokenSet>();
  expectOk(await postForm(h.app, REVOKE, { token: next.refresh_token }));
  expect(await active(t.access_token)).toBe(false);
  expect(await active(next.access_token)).toBe(false);
});

it('R-05 revoking an access token revokes that token only, not the refresh token', async () => {
  const other = await desktopTokens(h);
  expectOk(await postForm(h.app, REVOKE, { token: t.access_token }));
  expect(await active(t.access_token)).toBe(false);
  expect(await active(t.refresh_token)).toBe(true);
  expect(await active(other.access_token)).toBe(true);
  expect((await refresh(t.refresh_token)).statusCode).toBe(200);
});

it('R-06 effective at once: the next refresh with a revoked refresh token is invalid_grant', async () => {
  expectOk(await postForm(h.app, REVOKE, { token: t.refresh_token }));
  const res = await refresh(t.refresh_token);
  expect(res.statusCode).toBe(400);
  expect(res.json()).toMatchObject({ error: 'invalid_grant', code: 'REFRESH_TOKEN_REVOKED' });
});

it('R-07 idempotent: a second revoke is 200 too', async () => {
  expectOk(await postForm(h.app, REVOKE, { token: t.refresh_token }));
  expectOk(await postForm(h.app, REVOKE, { token: t.refresh_token }));
  expect(await active(t.refresh_token)).toBe(false);
});

describe('R-08 any body shape is 200', () => {
  it('R-08 no body at all', async () => {
    expectOk(await h.app.inject({ method: 'POST', url: REVOKE }));
  });

  it('R-08 an empty JSON object', async () => {
    expectOk(await postJson(h.app, REVOKE, {}));
  });

  it('R-08 malformed JSON', async () => {
    expectOk(
      await h.app.inject({
        method: 'POST',
        url: REVOKE,
        headers: { 'content-type': 'application/json' },
        payload: '{"token":',
      }),
    );
  });

  it('R-08 an unrelated content type', async () => {
    expectOk(
      await h.app.inject({
        method: 'POST',
        url: REVOKE,
        headers: { 'content-type': 'application/octet-stream' },
        payload: Buffer.from([0, 1, 2, 255]),
      }),
    );
  });

  it('R-08 an oversize body', async () => {
    expectOk(await postForm(h.app, REVOKE, { token: t.access_token, pad: 'x'.repeat(20_000) }));
    expect(await active(t.access_token)).toBe(true); // unread, so nothing revoked
  });

  it('R-08 a non-string token', async () => {
    expectOk(await postJson(h.app, REVOKE, { token: 42 }));
  });
});

it('R-09 a missing token is a 200 no-op (contract over RFC 7009 §2.2.1)', async () => {
  expectOk(await postForm(h.app, REVOKE, { token_type_hint: 'access_token' }));
  expect(await active(t.access_token)).toBe(true);
});

it('R-10 a client_id naming another client leaves the token alone, silently', async () => {
  expectOk(await postForm(h.app, REVOKE, { token: t.refresh_token, client_id: 'qa-web' }));
  expect(await active(t.refresh_token)).toBe(true);
});

it('R-10 a client_id naming the owner revokes', async () => {
  expectOk(await postForm(h.app, REVOKE, { token: t.refresh_token, client_id: 'desktop-app' }));
  expect(await active(t.refresh_token)).toBe(false);
});

describe('R-10 the caller authenticates as at the token endpoint, Basic included', () => {
  it("R-10 a confidential client with HTTP Basic cannot revoke another client's token", async () => {
    expectOk(
      await postForm(
        h.app,
        REVOKE,
        { token: t.refresh_token },
        { authorization: basic('qa-web', QA_SECRET) },
      ),
    );
    expect(await active(t.refresh_token)).toBe(true);
  });

  it('R-10 the same with client_secret_post: the two methods behave alike', async () => {
    const body = { token: t.refresh_token, client_id: 'qa-web', client_secret: QA_SECRET };
    expectOk(await postForm(h.app, REVOKE, body));
    expect(await active(t.refresh_token)).toBe(true);
  });

  it('R-10 a wrong Basic secret revokes nothing', async () => {
    const qa = await qaTokens();
    expectOk(
      await postForm(
        h.app,
        REVOKE,
        { token: qa.refresh_token },
        { authorization: basic('qa-web', 'wrong-secret') },
      ),
    );
    expect(await active(qa.refresh_token, 'qa-web')).toBe(true);
  });

  it('R-10 a confidential client with HTTP Basic revokes its own token', async () => {
    const qa = await qaTokens();
    expectOk(
      await postForm(
        h.app,
        REVOKE,
        { token: qa.refresh_token },
        { authorization: basic('qa-web', QA_SECRET) },
      ),
    );
    expect(await active(qa.refresh_token, 'qa-web')).toBe(false);
  });

  it('R-10 no client authentication at all: the endpoint stays public', async () => {
    expectOk(await postForm(h.app, REVOKE, { token: t.refresh_token }));
    expect(await active(t.refresh_token)).toBe(false);
  });
});

it('R-11 revocation answers carry Cache-Control: no-store and cost one in-memory lookup', async () => {
  const res = await postForm(h.app, REVOKE, { token: t.access_token });
  expect(res.headers['cache-control']).toBe('no-store');
  expect(h.module.api.state.grants.size).toBe(1);
});
