/**
 * panva's oidc-provider as the peer of bench/oauth-token.ts, configured like our server: the
 * same two clients (public `desktop-app` with PKCE S256, confidential `qa-web` with
 * client_secret_basic), authorization codes minted directly (no login page, as our mintCode),
 * refresh tokens rotated on every use, ID tokens HS256 with the client secret for the
 * confidential client. A public client has no secret, so its ID tokens are EdDSA (Ed25519, the
 * cheapest asymmetric signature oidc-provider offers; ours are HS256 under a server key).
 * Storage is a plain Map (its default memory adapter is an LRU of 1,000 entries, too small for
 * pre-minted pools); ours is in memory too.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';

export const PUBLIC_REDIRECT = 'http://127.0.0.1:8080/callback';
export const CONFIDENTIAL_REDIRECT = 'http://localhost:3000/callback';

const store = new Map<string, AdapterPayload>();
const byGrant = new Map<string, string[]>();

/** oidc-provider's adapter contract over one Map (no expiry sweep: runs are short). */
class MapAdapter implements Adapter {
  constructor(private readonly model: string) {}
  #key(id: string): string {
    return `${this.model}:${id}`;
  }
  upsert(id: string, payload: AdapterPayload): Promise<void> {
    const key = this.#key(id);
    store.set(key, payload);
    if (typeof payload.grantId === 'string') {
      const list = byGrant.get(payload.grantId) ?? [];
      list.push(key);
      byGrant.set(payload.grantId, list);
    }
    return Promise.resolve();
  }
  find(id: string): Promise<AdapterPayload | undefined> {
    return Promise.resolve(store.get(this.#key(id)));
  }
  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  findByUid(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  consume(id: string): Promise<void> {
    const p = store.get(this.#key(id));
    if (p !== undefined) p.consumed = Math.floor(Date.now() / 1000);
    return Promise.resolve();
  }
  destroy(id: string): Promise<void> {
    store.delete(this.#key(id));
    return Promise.resolve();
  }
  revokeByGrantId(grantId: string): Promise<void> {
    for (const key of byGrant.get(grantId) ?? []) store.delete(key);
    byGrant.delete(grantId);
    return Promise.resolve();
  }
}

export interface OidcPeer {
  readonly tokenUrl: string;
  /** A code for `clientId` with a fresh PKCE pair, ready for the token endpoint. */
  mint(
    clientId: 'desktop-app' | 'qa-web',
    subject: string,
  ): Promise<{ code: string; verifier: string }>;
  close(): Promise<void>;
}

/** Starts oidc-provider on 127.0.0.1 with `secret` as qa-web's client secret. */
export async function startOidcPeer(secret: string): Promise<OidcPeer> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = { ...privateKey.export({ format: 'jwk' }), alg: 'EdDSA', use: 'sig', kid: 'k1' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(url, {
    adapter: MapAdapter,
    clients: [
      {
        client_id: 'desktop-app',
        token_endpoint_auth_method: 'none',
        redirect_uris: [PUBLIC_REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        id_token_signed_response_alg: 'EdDSA',
      },
      {
        client_id: 'qa-web',
        client_secret: secret,
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [CONFIDENTIAL_REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        id_token_signed_response_alg: 'HS256',
      },
    ],
    jwks: { keys: [jwk] },
    enabledJWA: { idTokenSigningAlgValues: ['HS256', 'EdDSA'] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    pkce: { required: () => true },
    rotateRefreshToken: () => true,
    features: { devInteractions: { enabled: false } },
  });
  const handle = provider.callback();
  server.on('request', (req, res) => void handle(req, res));
  const clients = {
    'desktop-app': await provider.Client.find('desktop-app'),
    'qa-web': await provider.Client.find('qa-web'),
  };
  return {
    tokenUrl: `${url}/token`,
    async mint(clientId, subject) {
      const client = clients[clientId];
      if (client === undefined) throw new Error(`oidc-provider has no client ${clientId}`);
      const grant = new provider.Grant({ accountId: subject, clientId });
      grant.addOIDCScope('openid offline_access');
      const grantId = await grant.save();
      const verifier = randomBytes(32).toString('base64url');
      const code = await new provider.AuthorizationCode({
        client,
        accountId: subject,
        grantId,
        gty: 'authorization_code',
        scope: 'openid offline_access',
        redirectUri: clientId === 'qa-web' ? CONFIDENTIAL_REDIRECT : PUBLIC_REDIRECT,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        codeChallengeMethod: 'S256',
        authTime: Math.floor(Date.now() / 1000),
      }).save();
      return { code, verifier };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
