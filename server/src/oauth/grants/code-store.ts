/**
 * Authorization codes (RFC 6749 §4.1.2): 256 random bits, 60 s, bound to client, redirect URI,
 * PKCE challenge, nonce, scope and subject. Redemption is a synchronous compare-and-set
 * (`claim`), so of N concurrent redemptions exactly one wins (docs/OAUTH.md §The rules, T-19): Node runs it
 * without an `await` between the check and the write.
 */
import type { RandomSource } from '../../platform/random.js';
import type { Claims } from '../tokens/claims.js';
import { makeRoom } from '../make-room.js';

/** What a code is bound to. */
export interface CodeBinding {
  readonly clientId: string;
  readonly redirectUri: string;
  /** S256 challenge; undefined only for confidential clients that sent none. */
  readonly codeChallenge: string | undefined;
  readonly nonce: string | undefined;
  /** Space-delimited granted scope (RFC 6749 §3.3). */
  readonly scope: string;
  readonly subject: string;
  /** OIDC Core §2 auth_time, seconds since the epoch. */
  readonly authTimeSec: number;
  /** Extra ID-token claims chosen for this authorization (login page, minted code). */
  readonly claims?: Claims | undefined;
}

export interface CodeRecord extends CodeBinding {
  readonly expiresAtMs: number;
  /** Set once, by `claim`: the grant the code was redeemed into. */
  grantId: string | undefined;
  /** Kept after redemption so a replay can be detected and its tokens revoked (T-20). */
  retainUntilMs: number;
}

export class CodeStore {
  readonly #codes = new Map<string, CodeRecord>();

  constructor(
    private readonly random: RandomSource,
    private readonly ttlMs: number,
    private readonly maxCodes: number,
  ) {}

  /** Issues a new code for the binding, evicting expired then oldest records past the bound. */
  issue(binding: CodeBinding, nowMs: number): { code: string; expiresAtMs: number } {
    makeRoom(this.#codes, this.maxCodes, (r) => r.retainUntilMs <= nowMs);
    const code = this.random.token(32); // 256 bits, base64url (RFC 6749 §10.10)
    const expiresAtMs = nowMs + this.ttlMs;
    this.#codes.set(code, {
      ...binding,
      expiresAtMs,
      grantId: undefined,
      retainUntilMs: expiresAtMs,
    });
    return { code, expiresAtMs };
  }

  get(code: string): CodeRecord | undefined {
    return this.#codes.get(code);
  }

  /**
   * Atomically marks the code redeemed into `grantId`. Returns false when it already was.
   * Synchronous on purpose: no other request can run between the test and the set.
   */
  claim(record: CodeRecord, grantId: string, retainUntilMs: number): boolean {
    if (record.grantId !== undefined) return false;
    record.grantId = grantId;
    record.retainUntilMs = retainUntilMs;
    return true;
  }

  get size(): number {
    return this.#codes.size;
  }

  clear(): void {
    this.#codes.clear();
  }
}
