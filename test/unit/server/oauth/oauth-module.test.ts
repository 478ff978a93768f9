/**
 * The OAuth module's contract with the server: default clients, describe(), reset(), the
 * clients file, the dev API and discovery consistent with the issuer.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientRegistrationError } from '#server/oauth/clients.js';
import { createOAuthModule } from '#server/oauth/oauth-module.js';
import type { OAuthHarness } from '#test/oauth-context.js';
import { postJson } from '#test/post-json.js';
import {
  DESKTOP_REDIRECT,
  desktopTokens,
  fakeContext,
  oauthHarness,
  postForm,
  QA_SECRET,
  TEST_ISSUER,
} from '#test/oauth-context.js';

let h: OAuthHarness;
beforeEach(async () => {
  h = await oauthHarness();
});
afterEach(async () => {
  await h.close();
});

describe('clients', () => {
  it('registers the public desktop-app and the confidential qa-web', () => {
    expect(h.module.api.clients.get('desktop-app')?.secret).toBeUndefined();
    expect(h.module.api.clients.get('qa-web')?.secret).toBe(QA_SECRET);
  });

  it('describe() reports the qa-web secret for the first stdout line', () => {
    expect(h.module.describe?.()).toEqual({ qa_client_secret: QA_SECRET });
  });

  it('generates a qa-web secret of at least 32 bytes when none is given', async () => {
    const m = await createOAuthModule(fakeContext({ qaClientSecret: undefined }));
    expect(Buffer.byteLength(m.api.qaClientSecret)).toBeGreaterThanOrEqual(32);
  });

  it('refuses to start with a qa-web secret under 32 bytes', async () => {
    await expect(createOAuthModule(fakeContext({ qaClientSecret: 'short' }))).rejects.toThrow(
      ClientRegistrationError,
    );
  });

  it('reads more clients from a clients file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oauth-clients-'));
    try {
      const file = join(dir, 'clients.json');
      const clients = [{ client_id: 'extra', redirect_uris: ['https://app.test/cb'] }];
      await writeFile(file, JSON.stringify({ clients }));
      const m = await createOAuthModule(fakeContext({ clientsFile: file }));
      expect(m.api.clients.get('extra')?.redirectUris).toEqual(['https://app.test/cb']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a malformed clients file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oauth-clients-'));
    try {
      const file = join(dir, 'clients.json');
      await writeFile(
        file,
        JSON.stringify({ clients: [{ client_id: 'x', redirect_uris: 'nope' }] }),
      );
      await expect(createOAuthModule(fakeContext({ clientsFile: file }))).rejects.toThrow(
        ClientRegistrationError,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a redirect URI with a fragment (RFC 6749 §3.1.2)', () => {
    expect(() =>
      h.module.api.registerClient({ client_id: 'frag', redirect_uris: ['https://a.test/cb#x'] }),
    ).toThrow(ClientRegistrationError);
  });
});

it('reset() clears codes and grants: old codes and tokens stop working', async () => {
  const t = await desktopTokens(h);
  const m = h.module.api.mintCode({ client_id: 'desktop-app', redirect_uri: DESKTOP_REDIRECT });
  await h.module.reset();
  const intro = await postForm(h.app, '/api/oauth/introspect', {
    client_id: 'desktop-app',
    token: t.access_token,
  });
  expect(intro.json()).toEqual({ active: false });
  const res = await postForm(h.app, '/api/oauth/token', {
    grant_type: 'authorization_code',
    client_id: 'desktop-app',
    code: m.code,
    redirect_uri: DESKTOP_REDIRECT,
    code_verifier: m.code_verifier ?? '',
  });
  expect(res.json()).toMatchObject({ code: 'CODE_UNKNOWN' });
});

describe('dev API', () => {
  it('POST /api/dev/oauth/codes mints a code with the chosen subject and nonce', async () => {
    const res = await postJson(h.app, '/api/dev/oauth/codes', {
      client_id: 'desktop-app',
      subject: 'carol',
      nonce: 'n-1',
      scope: 'openid email',
    });
    expect(res.statusCode).toBe(201);
    const minted = res.json<{ code: string; code_verifier: string; redirect_uri: string }>();
    expect(minted.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const tok = await postForm(h.app, '/api/oauth/token', {
      grant_type: 'authorization_code',
      client_id: 'desktop-app',
      code: minted.code,
      redirect_uri: minted.redirect_uri,
      code_verifier: minted.code_verifier,
    });
    expect(tok.json()).toMatchObject({ scope: 'openid email' });
  });

  it('POST /api/dev/oauth/codes uses a given verifier', async () => {
    const verifier = 'v'.repeat(50);
    const res = await postJson(h.app, '/api/dev/oauth/codes', {
      client_id: 'desktop-app',
      code_verifier: verifier,
    });
    expect(res.json()).toMatchObject({ code_verifier: verifier });
  });

  it('POST /api/dev/oauth/codes refuses an unknown client with 400', async () => {
    const res = await postJson(h.app, '/api/dev/oauth/codes', { client_id: 'nobody' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, code: 'CLIENT_UNKNOWN' });
  });

  it('POST /api/dev/oauth/codes refuses a non-boolean pkce with 400', async () => {
    const res = await postJson(h.app, '/api/dev/oauth/codes', { client_id: 'qa-web', pkce: 'no' });
    expect(res.statusCode).toBe(400);
  });

  it('POST /api/dev/oauth/clients registers a client', async () => {
    const res = await postJson(h.app, '/api/dev/oauth/clients', {
      client_id: 'new-app',
      redirect_uris: ['https://new.test/cb'],
    });
    expect(res.statusCode).toBe(201);
    expect(h.module.api.clients.get('new-app')).toBeDefined();
  });

  it('POST /api/dev/oauth/clients refuses a short secret with 400', async () => {
    const res = await postJson(h.app, '/api/dev/oauth/clients', {
      client_id: 'weak',
      client_secret: 'short',
      redirect_uris: ['https://new.test/cb'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ok: false, error: 'invalid_request' });
  });
});

it('discovery is consistent with the issuer and advertises S256, HS256, both grants, userinfo and end-session', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({
    issuer: TEST_ISSUER,
    authorization_endpoint: `${TEST_ISSUER}/api/oauth/authorize`,
    token_endpoint: `${TEST_ISSUER}/api/oauth/token`,
    revocation_endpoint: `${TEST_ISSUER}/api/oauth/revoke`,
    introspection_endpoint: `${TEST_ISSUER}/api/oauth/introspect`,
    userinfo_endpoint: `${TEST_ISSUER}/api/oauth/userinfo`,
    end_session_endpoint: `${TEST_ISSUER}/api/oauth/end-session`,
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    id_token_signing_alg_values_supported: ['HS256'],
    authorization_response_iss_parameter_supported: true,
  });
});
