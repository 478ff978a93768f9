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
 * Throws unless `role`'s threshold is met. KEY_RETIRED when none of the signatures is by a key
 * the role lists (signed only by retired or foreign keys), THRESHOLD_NOT_MET otherwise.
 */
export function requireThreshold(
  envelope: Envelope,
  keys: ReadonlyMap<string, TufKey>,
  role: RoleKeys,
  roleName: string,
): void {
  const valid = countValidSignatures(envelope, keys, role);
  if (valid >= role.threshold) return;
  const listed = envelope.signatures.filter((s) => role.keyids.includes(s.keyid));
  const details = {
    role: roleName,
    threshold: role.threshold,
    valid,
    keyids_seen: envelope.signatures.map((s) => s.keyid),
  };
  if (listed.length === 0 && envelope.signatures.length > 0) {
    throw new TufError(
      'KEY_RETIRED',
      `${roleName} is signed only by keys it does not list`,
      details,
    );
  }
  throw new TufError(
    'THRESHOLD_NOT_MET',
    `${roleName}: ${valid} valid signature(s), threshold ${role.threshold}`,
    details,
  );
}
