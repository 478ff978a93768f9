/**
 * Expiry checks (TUF spec §5.3.10, §5.4.4, §5.5.6, §5.6.5) and the client-side bound on a
 * timestamp's lifetime. Metadata issued "in the future" is not refused: TUF has no issue date,
 * only an expiry.
 */
import { TufError, type SignedCommon } from '#protocol/tuf/index.js';

/** Expired when now >= expires, as python-tuf and the spec's "expiration timestamp" read it. */
export function requireNotExpired(signed: SignedCommon, role: string, nowMs: number): void {
  if (nowMs >= signed.expiresMs) {
    throw new TufError('EXPIRED', `${role} v${signed.version} expired at ${signed.expires}`, {
      role,
      version: signed.version,
      expires: signed.expires,
      now: new Date(nowMs).toISOString(),
    });
  }
}

/** Refuses a timestamp that expires more than `maxLifetimeS` seconds after now. */
export function requireTimestampLifetime(
  signed: SignedCommon,
  nowMs: number,
  maxLifetimeS: number,
): void {
  const lifetimeMs = signed.expiresMs - nowMs;
  if (lifetimeMs > maxLifetimeS * 1000) {
    throw new TufError(
      'TIMESTAMP_LIFETIME',
      `timestamp v${signed.version} expires ${signed.expires}, more than ${maxLifetimeS}s from now`,
      { version: signed.version, expires: signed.expires, max_lifetime_s: maxLifetimeS },
    );
  }
}
