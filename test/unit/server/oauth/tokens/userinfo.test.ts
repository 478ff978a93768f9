/**
 * GET and POST /api/oauth/userinfo (OIDC Core §5.3, RFC 6750 §3) and the extra claims behind it
 * (claims.ts): config per client and subject, the authorization's own, the onIssueTokens hook.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IssueTokensInput } from '#server/oauth/tokens/claims.js';
import type { ServerOptions } from '#server/compose/options.js';
import type { ServerConfig } from '#server/config/server-config.js';
import type { OAuthHarness } from '#test/oauth-context.js';
import { oauthHarness, postForm } from '#test/oauth-context.js';

const REDIRECT = 'http://127.0.0.1:4567/callback';
let h: OAuthHarness;
afterEach(async () => {
  await h.close();
});

interface Tokens {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly id_token: string;
}

async function tokens(
  input: { subject?: string; scope?: string; claims?: Record<string, unknown> } = {},
): Promise<Tokens> {
  const m = h.module.api.mintCode({ client_id: 'desktop-app', redirect_uri: REDIRECT, ...input });
  const res = await postForm(h.app, '/api/oauth/token', {
    grant_type: 'authorization_code',
    client_id: 'desktop-app',
    code: m.code,
    redirect_uri: REDIRECT,
    code_verifier: m.code_verifier ?? '',
  });
  expect(res.statusCode).toBe(200);
  return res.json<Tokens>();
}

const idClaims = (t: Tokens): Record<string, unknown> =>
  JSON.parse(Buffer.from(t.id_token.split('.')[1] ?? '', 'base64url').toString()) as Record<
    string,
    unknown
  >;

const userinfo = (authorization?: string, method: 'GET' | 'POST' = 'GET') =>
  h.app.inject({
    method,
    url: '/api/oauth/userinfo',
    headers: authorization === undefined ? {} : { authorization },
  });

async function start(options: Partial<ServerOptions> = {}, config: ServerConfig = {}) {
  h = await oauthHarness(options, config);
}

describe('userinfo', () => {
  it('answers sub and the extra claims for a valid access token, on GET and POST', async () => {
    await start({}, { oauth: { claims: { subjects: { alice: { email: 'a@example.test' } } } } });
    const t = await tokens({ subject: 'alice' });
    for (const method of ['GET', 'POST'] as const) {
      const res = await userinfo(`Bearer ${t.access_token}`, method);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toEqual({ sub: 'alice', email: 'a@example.test' });
    }
  });

  it('no token: 401 with a bare Bearer challenge (RFC 6750 §3.1)', async () => {
    await start();
    const res = await userinfo();
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="oauth"');
    expect(res.json()).toMatchObject({ ok: false, code: 'ACCESS_TOKEN_MISSING' });
    expect((await userinfo('Basic eDp5')).json()).toMatchObject({ code: 'ACCESS_TOKEN_MISSING' });
  });

  it('a malformed Bearer header: 400 invalid_request', async () => {
    await start();
    const res = await userinfo('Bearer a b');
    expect(res.statusCode).toBe(400);
    expect(res.headers['www-authenticate']).toContain('error="invalid_request"');
    expect(res.json()).toMatchObject({ error: 'invalid_request', code: 'ACCESS_TOKEN_MALFORMED' });
  });

  it('a tampered token or a refresh token: 401 invalid_token', async () => {
    await start();
    const t = await tokens();
    for (const token of [`${t.access_token.slice(0, -2)}AA`, t.refresh_token]) {
      const res = await userinfo(`Bearer ${token}`);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(
        /^Bearer realm="oauth", error="invalid_token"/,
      );
      expect(res.json()).toMatchObject({ error: 'invalid_token', code: 'ACCESS_TOKEN_INVALID' });
    }
  });

  it('an expired token: 401 ACCESS_TOKEN_EXPIRED', async () => {
    await start();
    const t = await tokens();
    h.advance(3600 * 1000);
    const res = await userinfo(`Bearer ${t.access_token}`);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'invalid_token', code: 'ACCESS_TOKEN_EXPIRED' });
  });

  it('a revoked token: 401 ACCESS_TOKEN_REVOKED, at once', async () => {
    await start();
    const t = await tokens();
    await postForm(h.app, '/api/oauth/revoke', { token: t.access_token });
    const res = await userinfo(`Bearer ${t.access_token}`);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'ACCESS_TOKEN_REVOKED' });
  });

  it('a token without the openid scope: 403 insufficient_scope', async () => {
    await start();
    const t = await tokens({ scope: 'profile' });
    const res = await userinfo(`Bearer ${t.access_token}`);
    expect(res.statusCode).toBe(403);
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(res.json()).toMatchObject({ error: 'insufficient_scope', code: 'SCOPE_INSUFFICIENT' });
  });
});

describe('extra claims in the ID token', () => {
  it('config per client, then per subject, then the authorization own; reserved ones stay', async () => {
    await start(
      {},
      {
        oauth: {
          claims: {
            clients: { 'desktop-app': { tier: 'client', app: 'desktop' } },
            subjects: { alice: { tier: 'subject', email: 'a@example.test' } },
          },
        },
      },
    );
    const t = await tokens({ subject: 'alice', claims: { roles: ['qa'] } });
    expect(idClaims(t)).toMatchObject({
      sub: 'alice',
      aud: 'desktop-app',
      app: 'desktop',
      tier: 'subject',
      email: 'a@example.test',
      roles: ['qa'],
    });
  });

  it('a minted code refuses reserved or oversized claims', async () => {
    await start();
    expect(() => h.module.api.mintCode({ client_id: 'desktop-app', claims: { sub: 'x' } })).toThrow(
      /sub is set by the server/,
    );
    expect(() =>
      h.module.api.mintCode({ client_id: 'desktop-app', claims: { big: 'x'.repeat(5000) } }),
    ).toThrow(/exceed 4096 bytes/);
  });

  it('onIssueTokens sees client, subject, scope, claims and grant type, and shapes the claims', async () => {
    const calls: IssueTokensInput[] = [];
    await start(
      {
        onIssueTokens: (input) => {
          calls.push(input);
          const { drop: _drop, ...kept } = input.claims;
          return { ...kept, grant: input.grant_type, n: calls.length };
        },
      },
      { oauth: { claims: { subjects: { bob: { drop: true, keep: 1 } } } } },
    );
    const t = await tokens({ subject: 'bob' });
    expect(calls[0]).toEqual({
      client_id: 'desktop-app',
      subject: 'bob',
      scope: 'openid',
      claims: { drop: true, keep: 1 },
      grant_type: 'authorization_code',
    });
    const first = idClaims(t);
    expect(first).toMatchObject({ keep: 1, grant: 'authorization_code', n: 1 });
    expect(first).not.toHaveProperty('drop');
    expect((await userinfo(`Bearer ${t.access_token}`)).json()).toEqual({
      sub: 'bob',
      keep: 1,
      grant: 'authorization_code',
      n: 1,
    });
    const refreshed = await postForm(h.app, '/api/oauth/token', {
      grant_type: 'refresh_token',
      client_id: 'desktop-app',
      refresh_token: t.refresh_token,
    });
    expect(idClaims(refreshed.json<Tokens>())).toMatchObject({ grant: 'refresh_token', n: 2 });
  });

  it('an async hook is awaited; undefined keeps the claims', async () => {
    await start(
      { onIssueTokens: () => Promise.resolve(undefined) },
      { oauth: { claims: { subjects: { carol: { a: 1 } } } } },
    );
    expect(idClaims(await tokens({ subject: 'carol' }))).toMatchObject({ sub: 'carol', a: 1 });
  });

  it.each([
    ['returns a reserved claim', () => ({ iss: 'https://evil.test' }), /iss is set by the server/],
    [
      'throws',
      () => {
        throw new Error('boom');
      },
      /threw Error: boom/,
    ],
  ])('a hook that %s fails the token request with 500 server_error', async (_w, hook, why) => {
    await start({ onIssueTokens: hook });
    const m = h.module.api.mintCode({ client_id: 'desktop-app', redirect_uri: REDIRECT });
    const res = await postForm(h.app, '/api/oauth/token', {
      grant_type: 'authorization_code',
      client_id: 'desktop-app',
      code: m.code,
      redirect_uri: REDIRECT,
      code_verifier: m.code_verifier ?? '',
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ error: 'server_error', code: 'INTERNAL' });
    expect(res.json<{ error_description: string }>().error_description).toMatch(why);
  });
});
