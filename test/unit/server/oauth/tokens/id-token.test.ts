/**
 * The HS256 ID token, rules I-01 … I-09 (OIDC Core §2, §3.1.3.6/7).
 */
import { createHash } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ClientRegistrationError } from '#server/oauth/clients.js';
import { atHash, hs256Key, IdTokenKeyError, signIdToken } from '#server/oauth/tokens/id-token.js';
import type { OAuthHarness, TokenSet } from '#test/oauth-context.js';
import { oauthHarness, postForm, QA_SECRET, TEST_ISSUER } from '#test/oauth-context.js';

let h: OAuthHarness;
beforeEach(async () => {
  h = await oauthHarness();
});
afterEach(async () => {
  await h.close();
});

async function qaTokens(opts: { nonce?: string; subject?: string } = {}): Promise<TokenSet> {
  const m = h.module.api.mintCode({ client_id: 'qa-web', ...opts });
  const res = await postForm(h.app, '/api/oauth/token', {
    grant_type: 'authorization_code',
    client_id: 'qa-web',
    client_secret: QA_SECRET,
    code: m.code,
    redirect_uri: m.redirect_uri,
    code_verifier: m.code_verifier ?? '',
  });
  expect(res.statusCode).toBe(200);
  return res.json<TokenSet>();
}

async function claimsOf(idToken: string): Promise<Record<string, unknown>> {
  const key = Buffer.from(QA_SECRET, 'utf8');
  const { payload } = await jwtVerify(idToken, key, {
    algorithms: ['HS256'],
    currentDate: new Date(h.clock.now()),
  });
  return payload;
}

it('I-01 iss equals the configured issuer exactly', async () => {
  const claims = await claimsOf((await qaTokens()).id_token);
  expect(claims['iss']).toBe(TEST_ISSUER);
});

it('I-02 sub is the authenticated subject', async () => {
  const claims = await claimsOf((await qaTokens({ subject: 'alice@example.test' })).id_token);
  expect(claims['sub']).toBe('alice@example.test');
});

it('I-02 a subject over 255 characters is refused at binding', () => {
  expect(() => h.module.api.mintCode({ client_id: 'qa-web', subject: 'a'.repeat(256) })).toThrow(
    expect.objectContaining({ code: 'SUBJECT_INVALID' }) as Error,
  );
});

it('I-03 aud is the single client_id string', async () => {
  const claims = await claimsOf((await qaTokens()).id_token);
  expect(claims['aud']).toBe('qa-web');
});

it('I-04 iat is the injected clock in seconds and exp is one hour later', async () => {
  h.advance(12_345);
  const claims = await claimsOf((await qaTokens()).id_token);
  const nowSec = Math.floor(h.clock.now() / 1000);
  expect(claims['iat']).toBe(nowSec);
  expect(claims['exp']).toBe(nowSec + 3600);
});

it('I-05 nonce is echoed exactly when the request had one', async () => {
  const claims = await claimsOf((await qaTokens({ nonce: 'n-0S6_WzA2Mj' })).id_token);
  expect(claims['nonce']).toBe('n-0S6_WzA2Mj');
});

it('I-05 nonce is absent when the request had none', async () => {
  const claims = await claimsOf((await qaTokens()).id_token);
  expect('nonce' in claims).toBe(false);
});

it('I-06 auth_time is always present, the time of authorization in seconds', async () => {
  const at = Math.floor(h.clock.now() / 1000);
  const m = h.module.api.mintCode({ client_id: 'qa-web' });
  h.advance(30_000);
  const res = await postForm(h.app, '/api/oauth/token', {
    grant_type: 'authorization_code',
    client_id: 'qa-web',
    client_secret: QA_SECRET,
    code: m.code,
    redirect_uri: m.redirect_uri,
    code_verifier: m.code_verifier ?? '',
  });
  const claims = await claimsOf(res.json<TokenSet>().id_token);
  expect(claims['auth_time']).toBe(at);
});

it('I-07 at_hash is base64url of the left half of SHA-256 over the access token', async () => {
  const t = await qaTokens();
  const claims = await claimsOf(t.id_token);
  const expected = createHash('sha256').update(t.access_token).digest().subarray(0, 16);
  expect(claims['at_hash']).toBe(expected.toString('base64url'));
  expect(atHash(t.access_token)).toBe(claims['at_hash']);
});

it('I-08 the header is alg HS256 and the key is the client secret', async () => {
  const t = await qaTokens();
  expect(decodeProtectedHeader(t.id_token)).toMatchObject({ alg: 'HS256' });
  await expect(
    jwtVerify(t.id_token, Buffer.from(`${QA_SECRET}x`), { currentDate: new Date(h.clock.now()) }),
  ).rejects.toThrow();
});

it('I-08 a client secret under 32 bytes is refused at registration', () => {
  expect(() =>
    h.module.api.registerClient({
      client_id: 'weak',
      client_secret: 'x'.repeat(31),
      redirect_uris: ['http://localhost/cb'],
    }),
  ).toThrow(ClientRegistrationError);
});

it('I-08 signing refuses an HS256 key under 32 bytes', () => {
  expect(() =>
    signIdToken({
      issuer: TEST_ISSUER,
      subject: 's',
      clientId: 'c',
      nonce: undefined,
      authTimeSec: 1,
      nowSec: 1,
      ttlSec: 60,
      accessToken: 'a',
      key: new Uint8Array(31),
    }),
  ).toThrow(IdTokenKeyError);
});

it('I-08 a refreshed ID token keeps sub and auth_time and drops the nonce', async () => {
  const t = await qaTokens({ nonce: 'abc' });
  const first = await claimsOf(t.id_token);
  h.advance(60_000);
  const res = await postForm(h.app, '/api/oauth/token', {
    grant_type: 'refresh_token',
    client_id: 'qa-web',
    client_secret: QA_SECRET,
    refresh_token: t.refresh_token,
  });
  const next = await claimsOf(res.json<TokenSet>().id_token);
  expect(next['sub']).toBe(first['sub']);
  expect(next['auth_time']).toBe(first['auth_time']);
  expect(next['iat']).toBe((first['iat'] as number) + 60);
  expect('nonce' in next).toBe(false);
});

it('I-09 discovery lists HS256 only and no jwks_uri (documented deviation)', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
  const doc = res.json<Record<string, unknown>>();
  expect(doc['id_token_signing_alg_values_supported']).toEqual(['HS256']);
  expect(doc['jwks_uri']).toBeUndefined();
});

it('I-08 the node:crypto signature is byte-identical to the one jose SignJWT made', async () => {
  const input = {
    issuer: TEST_ISSUER,
    subject: 'alice',
    clientId: 'qa-web',
    nonce: 'n-1',
    authTimeSec: 1_700_000_000,
    nowSec: 1_700_000_100,
    ttlSec: 600,
    accessToken: 'access-token-value',
  };
  const key = Buffer.from(QA_SECRET, 'utf8');
  const ours = signIdToken({ ...input, key });
  // The signing code this server used before: jose, same claims, same order.
  const old = await new SignJWT({
    auth_time: input.authTimeSec,
    at_hash: atHash(input.accessToken),
    nonce: input.nonce,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(input.issuer)
    .setSubject(input.subject)
    .setAudience(input.clientId)
    .setIssuedAt(input.nowSec)
    .setExpirationTime(input.nowSec + input.ttlSec)
    .sign(key);
  expect(ours).toBe(old);
  expect(signIdToken({ ...input, key: hs256Key(key) })).toBe(old);
  const { payload } = await jwtVerify(ours, key, {
    algorithms: ['HS256'],
    currentDate: new Date(input.nowSec * 1000),
  });
  expect(payload['nonce']).toBe('n-1');
});

it('I-08 hs256Key refuses a key under 32 bytes', () => {
  expect(() => hs256Key(new Uint8Array(31))).toThrow(IdTokenKeyError);
});
