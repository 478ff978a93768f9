/**
 * Grants and revocation state. A grant is the family of tokens from one authorization code:
 * its current refresh token (rotated on every use, RFC 9700 §4.14.2) and the revoked access
 * token ids. Revoking a grant deletes it, so every token that names it stops working at once
 * (RFC 7009 §2.1, docs/OAUTH.md §The rules, R-05/R-06). Memory is bounded: expired grants are pruned and the
 * oldest evicted past `maxGrants`.
 */
import type { RandomSource } from '../../platform/random.js';
import { NO_CLAIMS, type Claims } from '../tokens/claims.js';
import { makeRoom } from '../make-room.js';

export interface Grant {
  readonly id: string;
  readonly clientId: string;
  readonly subject: string;
  readonly scope: string;
  readonly authTimeSec: number;
  readonly nonce: string | undefined;
  /** The authorization's own extra claims (login page, minted code). */
  readonly claims: Claims | undefined;
  /** The extra claims of the last ID token issued: what userinfo answers beside `sub`. */
  issuedClaims: Claims;
  /** jti of the one refresh token that may be used next; older ones are reuse (T-28). */
  refreshJti: string;
  /** When the current refresh token expires; the grant is pruned after it. */
  expiresAtMs: number;
  /** Revoked access tokens of this grant, by jti (RFC 7009 §2.1: revoke that token). */
  readonly revokedAccess: Set<string>;
}

export type NewGrant = Omit<Grant, 'id' | 'revokedAccess' | 'issuedClaims' | 'claims'> & {
  readonly claims?: Claims | undefined;
};

export class GrantStore {
  readonly #grants = new Map<string, Grant>();

  constructor(
    private readonly random: RandomSource,
    private readonly maxGrants: number,
  ) {}

  /** A fresh grant id (128 bits). */
  newId(): string {
    return this.random.token(16);
  }

  /** A fresh token id (256 bits, RFC 6749 §10.10). */
  newJti(): string {
    return this.random.token(32);
  }

  /** Stores a grant under a pre-allocated id. */
  add(id: string, grant: NewGrant, nowMs: number): Grant {
    makeRoom(this.#grants, this.maxGrants, (r) => r.expiresAtMs <= nowMs);
    const full: Grant = {
      ...grant,
      claims: grant.claims,
      issuedClaims: NO_CLAIMS,
      id,
      revokedAccess: new Set(),
    };
    this.#grants.set(id, full);
    return full;
  }

  /** The live grant, or undefined when unknown, revoked or expired. */
  get(id: string, nowMs: number): Grant | undefined {
    const g = this.#grants.get(id);
    if (g === undefined) return undefined;
    if (g.expiresAtMs <= nowMs) {
      this.#grants.delete(id);
      return undefined;
    }
    return g;
  }

  /** Revokes the whole family (idempotent). */
  revoke(id: string): void {
    this.#grants.delete(id);
  }

  /** Revokes every grant of one subject at one client (RP-initiated logout); returns how many. */
  revokeSubject(clientId: string, subject: string): number {
    let n = 0;
    for (const [id, g] of this.#grants) {
      if (g.clientId === clientId && g.subject === subject) {
        this.#grants.delete(id);
        n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.#grants.size;
  }

  clear(): void {
    this.#grants.clear();
  }
}
