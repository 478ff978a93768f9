/**
 * The OIDC ID token (OIDC Core §2, §3.1.3.6): a JWT signed with HS256 (RFC 7518 §3.2) keyed by
 * the UTF-8 octets of the client's secret, which must be at least 32 bytes (docs/OAUTH.md §The rules, I-08;
 * HMAC takes any key length, so we enforce it). `aud` is the single client_id (I-03), times are in
 * seconds (I-04), `nonce` is echoed only when one was bound (I-05), `auth_time` is always set
 * (I-06) and `at_hash` is the left half of SHA-256 over the access token (I-07).
 */
import { createHash, createHmac, createSecretKey, KeyObject } from 'node:crypto';
import { MIN_SECRET_BYTES } from '../clients.js';
import { errorClass } from '../../server-error.js';

export interface IdTokenInput {
  readonly issuer: string;
  readonly subject: string;
  readonly clientId: string;
  readonly nonce: string | undefined;
  readonly authTimeSec: number;
  readonly nowSec: number;
  readonly ttlSec: number;
  readonly accessToken: string;
  /** HS256 key octets, or a key made by `hs256Key` (already length-checked). */
  readonly key: Uint8Array | KeyObject;
  /** Extra claims (claims.ts), after the registered ones; never a reserved name. */
  readonly extraClaims?: Readonly<Record<string, unknown>> | undefined;
}

/** An HS256 key under 32 bytes (RFC 7518 §3.2). */
export const IdTokenKeyError = errorClass('IdTokenKeyError', 'CLIENT_SECRET_TOO_SHORT');
export type IdTokenKeyError = InstanceType<typeof IdTokenKeyError>;

/** BASE64URL(UTF8('{"alg":"HS256","typ":"JWT"}')), the header jose's SignJWT wrote for us. */
export const ID_TOKEN_HEADER = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');

/** OIDC Core §3.1.3.6: base64url of the left-most 128 bits of SHA-256(ASCII(access_token)). */
export function atHash(accessToken: string): string {
  return createHash('sha256')
    .update(accessToken, 'ascii')
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

function requireKeyLength(key: Uint8Array): void {
  if (key.length < MIN_SECRET_BYTES) {
    throw new IdTokenKeyError(`HS256 key must be at least ${MIN_SECRET_BYTES} bytes`);
  }
}

/** Makes an HS256 key once from its octets. Refuses keys under 32 bytes (RFC 7518 §3.2). */
export function hs256Key(key: Uint8Array): KeyObject {
  requireKeyLength(key);
  return createSecretKey(key);
}

/**
 * Signs an ID token (RFC 7515 §7.1 compact JWS, HS256), synchronously with node:crypto. The
 * header and claim order are those jose's SignJWT produced, so the bytes are identical for the
 * same input. Refuses keys under 32 bytes rather than signing weakly.
 */
export function signIdToken(input: IdTokenInput): string {
  const key = input.key instanceof KeyObject ? input.key : hs256Key(input.key);
  const claims: Record<string, unknown> = {
    auth_time: input.authTimeSec,
    at_hash: atHash(input.accessToken),
  };
  if (input.nonce !== undefined) claims['nonce'] = input.nonce;
  claims['iss'] = input.issuer;
  claims['sub'] = input.subject;
  claims['aud'] = input.clientId;
  claims['iat'] = input.nowSec;
  claims['exp'] = input.nowSec + input.ttlSec;
  if (input.extraClaims !== undefined) {
    for (const [name, value] of Object.entries(input.extraClaims)) {
      if (!Object.hasOwn(claims, name)) claims[name] = value;
    }
  }
  const signingInput = `${ID_TOKEN_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = createHmac('sha256', key).update(signingInput).digest('base64url');
  return `${signingInput}.${signature}`;
}
