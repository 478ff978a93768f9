/**
 * The login page (docs/PROTOCOL.md §4.5): GET /api/oauth/authorize without login_hint shows a
 * form bound to the validated request by a one-time value and to the browser by a cookie;
 * POST /api/oauth/login approves (code bound to the chosen subject and claims) or denies.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { s256 } from '#server/oauth/grants/pkce.js';
import type { OAuthHarness } from '#test/oauth-context.js';
import { oauthHarness, postForm, TEST_ISSUER } from '#test/oauth-context.js';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'; // RFC 7636 Appendix B
const REDIRECT = 'http://127.0.0.1:53682/callback';

let h: OAuthHarness;
beforeEach(async () => {
  h = await oauthHarness();
});
afterEach(async () => {
  await h.close();
});

function authorizeQuery(extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: 'code',
    client_id: 'desktop-app',
    redirect_uri: REDIRECT,
    code_challenge: s256(VERIFIER),
    code_challenge_method: 'S256',
    state: 'st-1',
    nonce: 'no-1',
    scope: 'openid profile',
    ...extra,
  }).toString();
}

interface Shown {
  readonly res: LightMyRequestResponse;
  readonly loginId: string;
  readonly cookie: string;
}

async function show(extra: Record<string, string> = {}, cookie?: string): Promise<Shown> {
  const res = await h.app.inject({
    method: 'GET',
    url: `/api/oauth/authorize?${authorizeQuery(extra)}`,
    headers: cookie === undefined ? {} : { cookie },
  });
  const loginId = /name="login_id" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
  const set = String(res.headers['set-cookie'] ?? '');
  return { res, loginId, cookie: set.split(';')[0] ?? '' };
}

function submit(
  fields: Record<string, string>,
  cookie: string | undefined,
): Promise<LightMyRequestResponse> {
  return postForm(h.app, '/api/oauth/login', fields, cookie === undefined ? {} : { cookie });
}

async function redeem(location: string): Promise<Record<string, unknown>> {
  const code = new URL(location).searchParams.get('code') ?? '';
  const res = await postForm(h.app, '/api/oauth/token', {
    grant_type: 'authorization_code',
    client_id: 'desktop-app',
    code,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
  });
  expect(res.statusCode).toBe(200);
  const idToken = res.json<{ id_token: string }>().id_token;
  return JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString()) as Record<
    string,
    unknown
  >;
}

describe('GET /api/oauth/authorize without login_hint', () => {
  it('shows the login page with a strict CSP and no script', async () => {
    const { res, loginId } = await show();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:53682");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(csp).not.toContain('script-src');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).not.toMatch(/<script/i);
    expect(res.body).toContain('action="/api/oauth/login"');
    expect(loginId).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('binds the page to the browser with an HttpOnly, SameSite=Strict cookie', async () => {
    const { res, cookie } = await show();
    const set = String(res.headers['set-cookie']);
    expect(set).toMatch(/^vu_login=[A-Za-z0-9_-]{43}; Path=\/api\/oauth; Max-Age=600;/);
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Strict');
    // A second page in the same browser keeps its cookie, so both forms stay valid.
    const again = await show({}, cookie);
    expect(String(again.res.headers['set-cookie']).split(';')[0]).toBe(cookie);
  });

  it('still refuses a bad request before any page: a public client without PKCE', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${authorizeQuery({ code_challenge: '', code_challenge_method: '' })}`,
    });
    expect(res.statusCode).toBe(302);
    expect(new URL(String(res.headers.location)).searchParams.get('error')).toBe('invalid_request');
  });

  it('escapes what it shows: a client id with markup is text', async () => {
    h.module.api.registerClient({
      client_id: '<b>x</b>',
      client_secret: 'a-secret-of-at-least-thirty-two-bytes!!',
      redirect_uris: ['https://rp.test/cb'],
    });
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: '<b>x</b>',
        redirect_uri: 'https://rp.test/cb',
      }).toString()}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<b>x</b>');
    expect(res.body).toContain('&#60;b&#62;x&#60;/b&#62;');
    expect(String(res.headers['content-security-policy'])).toContain("'self' https://rp.test");
  });
});

describe('POST /api/oauth/login', () => {
  it('approves as the chosen subject with extra claims: 303 with code, state and iss', async () => {
    const { loginId, cookie } = await show();
    const res = await submit(
      {
        login_id: loginId,
        action: 'approve',
        subject: 'alice',
        claims: '{"email":"alice@example.test","roles":["qa"]}',
      },
      cookie,
    );
    expect(res.statusCode).toBe(303);
    const location = new URL(String(res.headers.location));
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.get('iss')).toBe(TEST_ISSUER);
    const claims = await redeem(location.toString());
    expect(claims).toMatchObject({
      sub: 'alice',
      nonce: 'no-1',
      email: 'alice@example.test',
      roles: ['qa'],
    });
  });

  it('the one-time value works once', async () => {
    const { loginId, cookie } = await show();
    const fields = { login_id: loginId, action: 'approve', subject: 'alice', claims: '' };
    expect((await submit(fields, cookie)).statusCode).toBe(303);
    const again = await submit(fields, cookie);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: 'invalid_request', code: 'LOGIN_REQUEST_UNKNOWN' });
  });

  it('refuses a form posted without the browser cookie, or with another one (CSRF)', async () => {
    const { loginId } = await show();
    const otherBrowser = (await show()).cookie;
    const fields = { login_id: loginId, action: 'approve', subject: 'mallory' };
    expect((await submit(fields, undefined)).json()).toMatchObject({ code: 'LOGIN_NOT_BOUND' });
    expect((await submit(fields, otherBrowser)).json()).toMatchObject({ code: 'LOGIN_NOT_BOUND' });
  });

  it('an unknown value is refused', async () => {
    const { cookie } = await show();
    const res = await submit({ login_id: 'B'.repeat(43), action: 'approve' }, cookie);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'LOGIN_REQUEST_UNKNOWN' });
  });

  it('expires after 10 minutes of the server clock', async () => {
    const { loginId, cookie } = await show();
    h.advance(10 * 60_000);
    const res = await submit({ login_id: loginId, action: 'approve', subject: 'a' }, cookie);
    expect(res.json()).toMatchObject({ code: 'LOGIN_REQUEST_UNKNOWN' });
  });

  it('deny redirects with access_denied and the state', async () => {
    const { loginId, cookie } = await show();
    const res = await submit({ login_id: loginId, action: 'deny' }, cookie);
    expect(res.statusCode).toBe(303);
    const location = new URL(String(res.headers.location));
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it.each([
    ['claims that are not JSON', { subject: 'alice', claims: '{nope' }, /not valid JSON/],
    ['claims that are not an object', { subject: 'alice', claims: '[1]' }, /JSON object/],
    ['a reserved claim', { subject: 'alice', claims: '{"aud":"x"}' }, /aud is set by the server/],
    ['a subject with a space', { subject: 'a b', claims: '' }, /subject must be/],
    ['no subject', { subject: '', claims: '' }, /subject is required/],
  ])(
    'shows the form again, with the reason, for %s; the value stays usable',
    async (_w, f, why) => {
      const { loginId, cookie } = await show();
      const res = await submit({ login_id: loginId, action: 'approve', ...f }, cookie);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(/role="alert" id="login-error">([^<]*)</.exec(res.body)?.[1]).toMatch(why);
      const ok = await submit({ login_id: loginId, action: 'approve', subject: 'alice' }, cookie);
      expect(ok.statusCode).toBe(303);
    },
  );

  it('an action other than approve or deny is refused', async () => {
    const { loginId, cookie } = await show();
    const res = await submit({ login_id: loginId, action: 'maybe' }, cookie);
    expect(res.json()).toMatchObject({ code: 'PARAMETER_MALFORMED' });
  });
});

describe('oauth.login_page: false', () => {
  it('approves at once as demo-user, as before the login page', async () => {
    await h.close();
    h = await oauthHarness({}, { oauth: { login_page: false } });
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/oauth/authorize?${authorizeQuery()}`,
    });
    expect(res.statusCode).toBe(302);
    expect(await redeem(String(res.headers.location))).toMatchObject({ sub: 'demo-user' });
  });
});
