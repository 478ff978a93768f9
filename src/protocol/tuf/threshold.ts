/**
 * The threshold check of TUF spec §5.3.4 / §5.4.2 / §5.5.3 / §5.6.3: metadata counts as signed
 * by a role when at least `threshold` distinct keys of that role made a valid signature over
 * the canonical `signed` bytes. A key listed under two keyids counts once.
 */
import { verifySignature } from './key-verify.js';
import type { Envelope, RoleKeys, TufKey } from './metadata.js';
import { TufError } from './tuf-error.js';

/** How many distinct keys of `role` made a valid signature over the envelope. */
export function countValidSignatures(
  envelope: Envelope,
  keys: ReadonlyMap<string, TufKey>,
  role: RoleKeys,
): number {
  const byKeyid = new Map(envelope.signatures.map((s) => [s.keyid, s.sig]));
  const counted = new Set<string>();
  for (const keyid of role.keyids) {
    const key = keys.get(keyid);
    const sig = byKeyid.get(keyid);
    if (key === undefined || sig === undefined) continue;
    const identity = `${key.keytype}\u0000${key.publicValue ?? keyid}`;
    if (counted.has(identity)) continue;
    if (verifySignature(key, sig, envelope.signedBytes)) counted.add(identity);
  }
  return counted.size;
}

/**
 * Throws unless `role`'s threshold is met. KEY_RETIRED when a valid signature comes from a key
 * `retired` holds (one an earlier trusted root listed for this role and a newer root dropped:
 * it would have counted before the rotation); THRESHOLD_NOT_MET otherwise, unknown keys
 * included (never listed, so nothing of theirs was ever trusted).
 */
export function requireThreshold(
  envelope: Envelope,
  keys: ReadonlyMap<string, TufKey>,
  role: RoleKeys,
  roleName: string,
  retired?: ReadonlyMap<string, TufKey>,
): void {
  const valid = countValidSignatures(envelope, keys, role);
  if (valid >= role.threshold) return;
  const details = {
    role: roleName,
    threshold: role.threshold,
    valid,
    keyids_seen: envelope.signatures.map((s) => s.keyid),
  };
  const byRetired = signedByRetired(envelope, role, retired);
  if (byRetired !== undefined) {
    throw new TufError('KEY_RETIRED', `${roleName} is signed by retired key ${byRetired}`, {
      ...details,
      retired_keyid: byRetired,
    });
  }
  throw new TufError(
    'THRESHOLD_NOT_MET',
    `${roleName}: ${valid} valid signature(s), threshold ${role.threshold}`,
    details,
  );
}

/** The keyid of a retired key (one `role` no longer lists) that validly signed, if any. */
function signedByRetired(
  envelope: Envelope,
  role: RoleKeys,
  retired: ReadonlyMap<string, TufKey> | undefined,
): string | undefined {
  if (retired === undefined || retired.size === 0) return undefined;
  for (const { keyid, sig } of envelope.signatures) {
    const key = retired.get(keyid);
    if (key === undefined || role.keyids.includes(keyid)) continue;
    // Only a signature that would have counted names the cause; a forged claim does not.
    if (verifySignature(key, sig, envelope.signedBytes)) return keyid;
  }
  return undefined;
}
