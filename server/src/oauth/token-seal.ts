/**
 * Sealed access and refresh tokens: JWE compact serialization, `dir` + `A256GCM` (RFC 7516,
 * RFC 7518 §4.5/§5.3), via jose. The result is base64url segments joined by '.', which is
 * Bearer-safe (RFC 6750 §2.1 b64token, checklist T-24). The seal proves the server minted the
 * token; revocation state lives in the GrantStore.
 */
import { webcrypto } from 'node:crypto';
import { EncryptJWT, errors, jwtDecrypt } from 'jose';

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

/** Seals and opens tokens with one 256-bit key. */
export class TokenSealer {
  /** Imported once: jose re-imports raw key bytes on every call, which costs ~3x per token. */
  readonly #key: Promise<webcrypto.CryptoKey>;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new RangeError('A256GCM needs a 32-byte key');
    this.#key = webcrypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt', 'decrypt']);
  }

  /** Seals the claims into a compact JWE. */
  async seal(claims: TokenClaims): Promise<string> {
    const { jti, iat, exp, sub, ...rest } = claims;
    return new EncryptJWT({ ...rest })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setJti(jti)
      .setSubject(sub)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .encrypt(await this.#key);
  }

  /** Opens a token; any tampering, foreign key or wrong shape is 'invalid', never a throw. */
  async unseal(token: string, nowMs: number): Promise<UnsealResult> {
    if (token.length > 4096 || !/^[A-Za-z0-9\-_.]+$/.test(token)) {
      return { ok: false, reason: 'invalid' };
    }
    try {
      const { payload } = await jwtDecrypt(token, await this.#key, {
        currentDate: new Date(nowMs),
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
      });
      const p = payload as Record<string, unknown>;
      const strings = ['jti', 'sub', 'cid', 'scope', 'gid'].every((k) => typeof p[k] === 'string');
      const kindOk = p['kind'] === 'access' || p['kind'] === 'refresh';
      const timesOk = typeof p['iat'] === 'number' && typeof p['exp'] === 'number';
      if (!strings || !kindOk || !timesOk) return { ok: false, reason: 'invalid' };
      return { ok: true, claims: p as unknown as TokenClaims };
    } catch (err) {
      if (err instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
      return { ok: false, reason: 'invalid' };
    }
  }
}
