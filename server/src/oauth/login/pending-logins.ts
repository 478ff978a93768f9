/**
 * Authorization requests waiting on the login page (docs/PROTOCOL.md §4.5). Each is validated
 * in full before it is stored and is found by a one-time value of 256 bits that only the page
 * carries; the browser that asked also holds a cookie whose SHA-256 the record keeps, so a form
 * posted from anywhere else (another site, another browser) does not match. A record is
 * consumed by the first approval or denial, expires with the code lifetime's bound (10 min) and
 * the store is bounded like the code store.
 */
import { createHash } from 'node:crypto';
import type { RandomSource } from '../../platform/random.js';
import { constantTimeEqual } from '../constant-time.js';
import { makeRoom } from '../make-room.js';

/** What the approved request will be bound to, as validated at GET /api/oauth/authorize. */
export interface PendingLogin {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly scope: string;
  readonly nonce: string | undefined;
  readonly codeChallenge: string | undefined;
  readonly codeChallengeMethod: string | undefined;
  readonly expiresAtMs: number;
  /** SHA-256 (hex) of the browser's binding cookie. */
  readonly browserSha256: string;
}

/** How long a login page stays valid (RFC 6749 §4.1.2's upper bound for codes, 10 min). */
export const LOGIN_TTL_MS = 10 * 60_000;
export const MAX_PENDING_LOGINS = 10_000;
/** The cookie that binds a login page to the browser it was shown in. */
export const LOGIN_COOKIE = 'vu_login';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export class PendingLogins {
  readonly #pending = new Map<string, PendingLogin>();

  constructor(private readonly random: RandomSource) {}

  /** A fresh browser binding value (the cookie), unless the browser already has a good one. */
  browserValue(existing: string | undefined): string {
    return existing !== undefined && COOKIE_VALUE.test(existing) ? existing : this.random.token(32);
  }

  /** Stores a validated request and returns its one-time value. */
  add(
    login: Omit<PendingLogin, 'browserSha256' | 'expiresAtMs'>,
    browser: string,
    nowMs: number,
  ): string {
    makeRoom(this.#pending, MAX_PENDING_LOGINS, (p) => p.expiresAtMs <= nowMs);
    const id = this.random.token(32);
    this.#pending.set(id, {
      ...login,
      expiresAtMs: nowMs + LOGIN_TTL_MS,
      browserSha256: sha256(browser),
    });
    return id;
  }

  /**
   * The pending request for a one-time value posted by the browser holding `browser`, or why
   * not: unknown (never issued, used, expired) or not bound to this browser.
   */
  find(
    id: string | undefined,
    browser: string | undefined,
    nowMs: number,
  ): PendingLogin | 'unknown' | 'not-bound' {
    const p = id === undefined ? undefined : this.#pending.get(id);
    if (id === undefined || p === undefined) return 'unknown';
    if (p.expiresAtMs <= nowMs) {
      this.#pending.delete(id);
      return 'unknown';
    }
    if (browser === undefined || !constantTimeEqual(sha256(browser), p.browserSha256)) {
      return 'not-bound';
    }
    return p;
  }

  /** Consumes a request (approved or denied): its value cannot be used again. */
  consume(id: string): void {
    this.#pending.delete(id);
  }

  get size(): number {
    return this.#pending.size;
  }

  clear(): void {
    this.#pending.clear();
  }
}
