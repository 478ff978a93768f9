/**
 * Client authentication at the token and introspection endpoints (RFC 6749 §2.3.1, checklist
 * T-08/T-09): `client_secret_basic`, `client_secret_post`, and `none` for public clients (which
 * must still send client_id). Any failure is 401 invalid_client; a Basic attempt adds the
 * `WWW-Authenticate: Basic` challenge (RFC 6749 §5.2). Secrets are compared in constant time.
 */
import type { ClientRegistry, OAuthClient } from './clients.js';
import { constantTimeEqual } from './constant-time.js';
import { invalidClient, invalidRequest, OAuthError } from './oauth-error.js';
import type { OAuthParams } from './oauth-params.js';
import { optionalString } from './oauth-params.js';

/** The authenticated client and how it authenticated. */
export interface AuthenticatedClient {
  readonly client: OAuthClient;
  readonly method: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/**
 * Authenticates the client of a request from its Authorization header and body parameters.
 * Two mechanisms at once are 400 invalid_request (RFC 6749 §2.3: "MUST NOT use more than one").
 */
export function authenticateClient(
  registry: ClientRegistry,
  authorization: string | undefined,
  params: OAuthParams,
): AuthenticatedClient {
  const bodyId = optionalString(params, 'client_id');
  const bodySecret = optionalString(params, 'client_secret');
  if (authorization !== undefined && authorization !== '') {
    if (bodySecret !== undefined) {
      throw invalidRequest('CLIENT_AUTH_MULTIPLE', 'use Basic or client_secret, not both');
    }
    const basic = parseBasic(authorization);
    if (bodyId !== undefined && bodyId !== basic.id) {
      throw invalidRequest('CLIENT_MISMATCH', 'client_id differs from the Basic credentials');
    }
    const client = registry.get(basic.id);
    if (client === undefined) throw unknownClient().withBasicChallenge();
    if (client.secret === undefined || !constantTimeEqual(basic.secret, client.secret)) {
      throw badSecret().withBasicChallenge();
    }
    return { client, method: 'client_secret_basic' };
  }
  if (bodyId === undefined) {
    throw invalidClient('CLIENT_AUTH_MISSING', 'client authentication is required');
  }
  const client = registry.get(bodyId);
  if (client === undefined) throw unknownClient();
  if (client.secret === undefined) {
    // A public client has no secret; sending one is a client bug, refused rather than ignored.
    if (bodySecret !== undefined) throw badSecret();
    return { client, method: 'none' };
  }
  if (bodySecret === undefined || !constantTimeEqual(bodySecret, client.secret)) {
    throw badSecret();
  }
  return { client, method: 'client_secret_post' };
}

const unknownClient = (): OAuthError =>
  invalidClient('CLIENT_UNKNOWN', 'client authentication failed');
const badSecret = (): OAuthError =>
  invalidClient('CLIENT_SECRET_INVALID', 'client authentication failed');

/**
 * Parses `Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 §2.3.1, RFC 7617).
 * The id and secret are form-url-decoded ('+' is a space).
 */
export function parseBasic(header: string): { id: string; secret: string } {
  const m = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  const decoded = m?.[1] === undefined ? '' : Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw malformedBasic();
  try {
    const id = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    if (id === '') throw malformedBasic();
    return { id, secret };
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    throw malformedBasic();
  }
}

function formDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, ' '));
}

const malformedBasic = (): OAuthError =>
  invalidClient('CLIENT_AUTH_MALFORMED', 'malformed Basic credentials').withBasicChallenge();
