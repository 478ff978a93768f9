/**
 * Interop (docs/OAUTH.md §Pointing): an independent OAuth client library, oauth4webapi, runs discovery,
 * authorization code + PKCE through GET /api/oauth/authorize (reading the Location header),
 * refresh, revoke, and a refresh that must fail, against the running server on loopback.
 * The issuer is http, so the library's `allowInsecureRequests` option is set (docs/OAUTH.md §The rules, I-01).
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '#server/compose/start-server.js';
import { startServer } from '#server/compose/start-server.js';

let server: RunningServer;
let as: oauth.AuthorizationServer;
const insecure = { [oauth.allowInsecureRequests]: true } as const;

beforeAll(async () => {
  server = await startServer({ seed: 11 });
  const issuer = new URL(server.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});
afterAll(async () => {
  await server.close();
});

interface Flow {
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
  readonly redirectUri: string;
}

/** Authorization code + PKCE through the authorization endpoint; returns the token result. */
async function codeFlow(flow: Flow): Promise<oauth.TokenEndpointResponse> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(String(as.authorization_endpoint));
  url.search = new URLSearchParams({
    client_id: flow.client.client_id,
    redirect_uri: flow.redirectUri,
    response_type: 'code',
    scope: 'openid profile',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    login_hint: 'interop-user',
  }).toString();
  const authz = await fetch(url, { redirect: 'manual' });
  expect(authz.status).toBe(302);
  const callback = new URL(String(authz.headers.get('location')));
  const params = oauth.validateAuthResponse(as, flow.client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    flow.client,
    flow.auth,
    params,
    flow.redirectUri,
    verifier,
    insecure,
  );
  const result = await oauth.processAuthorizationCodeResponse(as, flow.client, response, {
    expectedNonce: nonce,
    requireIdToken: true,
  });
  const claims = oauth.getValidatedIdTokenClaims(result);
  expect(claims?.sub).toBe('interop-user');
  expect(claims?.nonce).toBe(nonce);
  return result;
}

async function refresh(flow: Flow, token: string): Promise<oauth.TokenEndpointResponse> {
  const response = await oauth.refreshTokenGrantRequest(
    as,
    flow.client,
    flow.auth,
    token,
    insecure,
  );
  return oauth.processRefreshTokenResponse(as, flow.client, response);
}

async function revoke(flow: Flow, token: string): Promise<void> {
  const response = await oauth.revocationRequest(as, flow.client, flow.auth, token, insecure);
  await oauth.processRevocationResponse(response);
}

describe.each([
  ['confidential qa-web, client_secret_basic', 'qa-web', 'basic', 'http://localhost:3000/callback'],
  ['public desktop-app, none', 'desktop-app', 'none', 'http://127.0.0.1:45123/callback'],
])('oauth4webapi: %s', (_name, clientId, method, redirectUri) => {
  const flow = (): Flow => ({
    client: { client_id: clientId },
    auth: method === 'basic' ? oauth.ClientSecretBasic(server.oauth.qaClientSecret) : oauth.None(),
    redirectUri,
  });

  it('discovery is accepted for the server URL as issuer', () => {
    expect(as.issuer).toBe(server.url);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('code + PKCE, refresh, revoke, then the refresh fails with invalid_grant', async () => {
    const f = flow();
    const first = await codeFlow(f);
    expect(first.token_type).toBe('bearer');
    expect(first.expires_in).toBe(3600);
    const second = await refresh(f, String(first.refresh_token));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    await revoke(f, String(second.refresh_token));
    const error = await refresh(f, String(second.refresh_token)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    expect((error as oauth.ResponseBodyError).error).toBe('invalid_grant');
  });

  it('introspection sees a revoked access token as inactive', async () => {
    const f = flow();
    const tokens = await codeFlow(f);
    const ask = async (): Promise<oauth.IntrospectionResponse> =>
      oauth.processIntrospectionResponse(
        as,
        f.client,
        await oauth.introspectionRequest(as, f.client, f.auth, tokens.access_token, insecure),
      );
    expect((await ask()).active).toBe(true);
    await revoke(f, tokens.access_token);
    expect((await ask()).active).toBe(false);
  });

  it('userinfo (OIDC Core §5.3) answers the subject; once revoked, invalid_token', async () => {
    const f = flow();
    const tokens = await codeFlow(f);
    expect(as.userinfo_endpoint).toBe(`${server.url}/api/oauth/userinfo`);
    const ask = async () =>
      oauth.processUserInfoResponse(
        as,
        f.client,
        'interop-user',
        await oauth.userInfoRequest(as, f.client, tokens.access_token, insecure),
      );
    expect((await ask()).sub).toBe('interop-user');
    await revoke(f, tokens.access_token);
    const error = await ask().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const challenge = (error as oauth.WWWAuthenticateChallengeError).cause[0];
    expect(challenge?.scheme).toBe('bearer');
    expect(challenge?.parameters.error).toBe('invalid_token');
  });
});
