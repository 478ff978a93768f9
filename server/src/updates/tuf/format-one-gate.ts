/**
 * When format 1 may still be spoken (docs/PROTOCOL.md §TUF repository, Format 1 and the node
 * key): the interface's `node_pubkey` is the key of root version 1, so format 1 envelopes are
 * signed and served only while the root has never rotated. After a rotation a format 1
 * client's pinned key is retired: nothing it trusts may be signed or served any more.
 */
import type { KeySet } from '#protocol';

/** True while the newest key set's root role is exactly key set 1's (same keys, threshold). */
export function rootNeverRotated(first: KeySet | undefined, newest: KeySet | undefined): boolean {
  if (first === undefined || newest === undefined) return false;
  const a = first.root;
  const b = newest.root;
  if (a.threshold !== b.threshold || a.keys.length !== b.keys.length) return false;
  const keyids = new Set(a.keys.map((k) => k.keyid));
  return b.keys.every((k) => keyids.has(k.keyid));
}
