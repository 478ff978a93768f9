/**
 * The request nonce of a run (docs/PROTOCOL.md §2.7.5): fresh per attempt, sent with the
 * manifest GET (format 1/2) or the TUF timestamp request, and required back signed.
 */
import type { RandomBytes } from '../ports.js';

/** Bytes of a request nonce: 128 bits, 22 base64url characters (docs/PROTOCOL.md §2.7.5). */
export const NONCE_BYTES = 16;

/** A fresh nonce from the injected CSPRNG, base64url without padding. */
export function newNonce(randomBytes: RandomBytes): string {
  return Buffer.from(randomBytes(NONCE_BYTES)).toString('base64url');
}
