/**
 * The OIDC ID token (OIDC Core §2, §3.1.3.6): a JWT signed with HS256 (RFC 7518 §3.2) keyed by
 * the UTF-8 octets of the client's secret, which must be at least 32 bytes (checklist I-08;
 * jose does not enforce it, so we do). `aud` is the single client_id (I-03), times are in
 * seconds (I-04), `nonce` is echoed only when one was bound (I-05), `auth_time` is always set
 * (I-06) and `at_hash` is the left half of SHA-256 over the access token (I-07).
 */
import { createHash, webcrypto } from 'node:crypto';
import { SignJWT } from 'jose';
import { MIN_SECRET_BYTES } from './clients.js';

export interface IdTokenInput {
  readonly issuer: string;
  readonly subject: string;
  readonly clientId: string;
  readonly nonce: string | undefined;
  readonly authTimeSec: number;
  readonly nowSec: number;
  readonly ttlSec: number;
  readonly accessToken: string;
  /** HS256 key octets, or a key made by `importHs256Key` (already length-checked). */
  readonly key: Uint8Array | webcrypto.CryptoKey;
}

export class IdTokenKeyError extends Error {
  override readonly name = 'IdTokenKeyError';
  readonly code = 'CLIENT_SECRET_TOO_SHORT';
}

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

/**
 * Imports HS256 key octets once (jose would re-import raw bytes on every signature). Refuses
 * keys under 32 bytes (RFC 7518 §3.2).
 */
export async function importHs256Key(key: Uint8Array): Promise<webcrypto.CryptoKey> {
  requireKeyLength(key);
  return webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

/** Signs an ID token. Refuses keys under 32 bytes rather than signing weakly. */
export async function signIdToken(input: IdTokenInput): Promise<string> {
  if (input.key instanceof Uint8Array) requireKeyLength(input.key);
  const claims: Record<string, unknown> = {
    auth_time: input.authTimeSec,
    at_hash: atHash(input.accessToken),
  };
  if (input.nonce !== undefined) claims['nonce'] = input.nonce;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(input.issuer)
    .setSubject(input.subject)
    .setAudience(input.clientId)
    .setIssuedAt(input.nowSec)
    .setExpirationTime(input.nowSec + input.ttlSec)
    .sign(input.key);
}
