/**
 * Constant-time string equality for secrets (docs/OAUTH.md §The rules, T-08; node-oidc-provider
 * `constant_equals.js`). Both sides are hashed first, so neither length nor content leaks.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** True when the two strings are equal, in time independent of their contents. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}
