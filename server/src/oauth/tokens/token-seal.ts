/**
 * Sealed access and refresh tokens: JWE compact serialization, `dir` + `A256GCM` (RFC 7516
 * §3.1, RFC 7518 §4.5/§5.3). The result is base64url segments joined by '.', which is
 * Bearer-safe (RFC 6750 §2.1 b64token, docs/OAUTH.md §The rules, T-24). The seal proves the server minted the
 * token; revocation state lives in the GrantStore.
 *
 * Synchronous node:crypto instead of jose/WebCrypto (docs/OAUTH.md, "Token crypto"): the same
 * bytes (header, claim order, 96-bit IV, 128-bit tag), so tokens sealed by either open with
 * the other, at a fraction of the cost. A fresh IV from the CSPRNG for every token.
 */
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { RandomPool } from '../../platform/random-pool.js';

export type TokenKind = 'access' | 'refresh';

/** The sealed claims. Short names keep tokens small. */
export interface TokenClaims {
  readonly jti: string;
  readonly kind: TokenKind;
  /** client_id */
  readonly cid: string;
  readonly sub: string;
  readonly scope: string;
  /** grant id */
  readonly gid: string;
  /** seconds since the epoch */
  readonly iat: number;
  readonly exp: number;
}

export type UnsealResult =
  | { readonly ok: true; readonly claims: TokenClaims }
  | { readonly ok: false; readonly reason: 'invalid' | 'expired' };

/** BASE64URL(UTF8('{"alg":"dir","enc":"A256GCM"}')): the only header we mint or accept. */
export const SEAL_HEADER = Buffer.from('{"alg":"dir","enc":"A256GCM"}').toString('base64url');
const AAD = Buffer.from(SEAL_HEADER, 'ascii'); // RFC 7516 §5.1 step 14: ASCII(protected header)
const IV_BYTES = 12;
const TAG_BYTES = 16;
const IV_CHARS = 16; // base64url of 12 bytes
const TAG_CHARS = 22; // base64url of 16 bytes, unpadded
const MAX_TOKEN_CHARS = 4096;
const B64URL = /^[A-Za-z0-9\-_]*$/;
const STRING_CLAIMS = ['jti', 'sub', 'cid', 'scope', 'gid'] as const;

/** Seals and opens tokens with one 256-bit key. */
export class TokenSealer {
  readonly #key: KeyObject;
  readonly #ivs = new RandomPool();

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new RangeError('A256GCM needs a 32-byte key');
    this.#key = createSecretKey(key);
  }

  /** Seals the claims into a compact JWE (claims in the order jose's EncryptJWT wrote them). */
  seal(claims: TokenClaims): string {
    const { jti, iat, exp, sub, ...rest } = claims;
    const plaintext = JSON.stringify({ ...rest, jti, sub, iat, exp });
    const iv = this.#ivs.take(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(AAD);
    const head = cipher.update(plaintext, 'utf8');
    const tail = cipher.final();
    const ct = tail.length === 0 ? head : Buffer.concat([head, tail]);
    const tag = cipher.getAuthTag();
    // RFC 7516 §7.1; `dir` has an empty encrypted key (RFC 7518 §4.5).
    return `${SEAL_HEADER}..${iv.toString('base64url')}.${ct.toString('base64url')}.${tag.toString('base64url')}`;
  }

  /** Opens a token; any tampering, foreign key or wrong shape is 'invalid', never a throw. */
  unseal(token: string, nowMs: number): Promise<UnsealResult> {
    return Promise.resolve(this.open(token, nowMs));
  }

  /** `unseal`, synchronously. */
  open(token: string, nowMs: number): UnsealResult {
    const claims = this.#decrypt(token);
    if (claims === undefined) return INVALID;
    // RFC 7519 §4.1.4: expired when now >= exp (jose's rule, whole seconds, no tolerance).
    if (Math.floor(nowMs / 1000) >= claims.exp) return EXPIRED;
    return { ok: true, claims };
  }

  #decrypt(token: string): TokenClaims | undefined {
    if (token.length > MAX_TOKEN_CHARS) return undefined;
    const parts = token.split('.');
    if (parts.length !== 5) return undefined;
    const [header, encryptedKey, iv = '', ct = '', tag = ''] = parts;
    if (header !== SEAL_HEADER || encryptedKey !== '') return undefined;
    if (iv.length !== IV_CHARS || tag.length !== TAG_CHARS || ct.length === 0) return undefined;
    if (!B64URL.test(iv) || !B64URL.test(ct) || !B64URL.test(tag)) return undefined;
    const tagBytes = Buffer.from(tag, 'base64url');
    const ctBytes = Buffer.from(ct, 'base64url');
    // Only the canonical encoding: no second spelling of one token (spare bits set).
    if (tagBytes.toString('base64url') !== tag || ctBytes.toString('base64url') !== ct) {
      return undefined;
    }
    let plaintext: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(AAD);
      decipher.setAuthTag(tagBytes);
      plaintext = decipher.update(ctBytes, undefined, 'utf8') + decipher.final('utf8');
    } catch {
      return undefined; // GCM tag mismatch: tampered, or sealed under another key
    }
    return claimsOf(plaintext);
  }
}

const INVALID: UnsealResult = { ok: false, reason: 'invalid' };
const EXPIRED: UnsealResult = { ok: false, reason: 'expired' };

/** The authenticated plaintext as claims, or undefined when its shape is not ours. */
function claimsOf(plaintext: string): TokenClaims | undefined {
  let p: unknown;
  try {
    p = JSON.parse(plaintext);
  } catch {
    return undefined;
  }
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return undefined;
  const r = p as Record<string, unknown>;
  if (!STRING_CLAIMS.every((k) => typeof r[k] === 'string')) return undefined;
  if (r['kind'] !== 'access' && r['kind'] !== 'refresh') return undefined;
  if (!Number.isFinite(r['iat']) || !Number.isFinite(r['exp'])) return undefined;
  return r as unknown as TokenClaims;
}
