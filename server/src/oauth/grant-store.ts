/**
 * Grants and revocation state. A grant is the family of tokens from one authorization code:
 * its current refresh token (rotated on every use, RFC 9700 §4.14.2) and the revoked access
 * token ids. Revoking a grant deletes it, so every token that names it stops working at once
 * (RFC 7009 §2.1, checklist ). Memory is bounded: expired grants are pruned and the
 * oldest evicted past `maxGrants`.
 */
import type { RandomSource } from '../random.js';
import { makeRoom } from './make-room.js';

export interface Grant {
  readonly id: string;
  readonly clientId: string;
  readonly subject: string;
  readonly scope: string;
  readonly authTimeSec: number;
  readonly nonce: string | undefined;
  /** jti of the one refresh token that may be used next; older ones are reuse (T-28). */
  refreshJti: string;
  /** When the current refresh token expires; the grant is pruned after it. */
  expiresAtMs: number;
  /** Revoked access tokens of this grant, by jti (RFC 7009 §2.1: revoke that token). */
  readonly revokedAccess: Set<string>;
}

export type NewGrant = Omit<Grant, 'id' | 'revokedAccess'>;

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
    const full: Grant = { ...grant, id, revokedAccess: new Set() };
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

  get size(): number {
    return this.#grants.size;
  }

  clear(): void {
    this.#grants.clear();
  }
}
