/**
 * Format 1 only while the root never rotated (server/src/updates/tuf/format-one-gate.ts): the
 * newest root role must be exactly key set 1's, whatever else rotated.
 */
import { describe, expect, it } from 'vitest';
import type { KeySet, Role } from '#protocol';
import { rootNeverRotated } from '#server/updates/tuf/format-one-gate.js';
import { newKey } from '#test/trust-kit.js';

const role = (keys: ReturnType<typeof newKey>[], threshold = 1): Role => ({
  threshold,
  keys: keys.map((k) => ({ keyid: k.keyid, publicKey: k.publicKey, hex: k.hex })),
});
const root = [newKey(), newKey()];
const keySet = (version: number, rootRole: Role): KeySet => ({
  version,
  root: rootRole,
  release: role([newKey()]),
  freshness: role([newKey()]),
});

describe('rootNeverRotated', () => {
  it('is true for key set 1 alone and after a rotation of other roles', () => {
    const first = keySet(1, role([root[0]!]));
    expect(rootNeverRotated(first, first)).toBe(true);
    expect(rootNeverRotated(first, keySet(2, role([root[0]!])))).toBe(true);
  });

  it('is false after a root rotation: a key added, dropped, replaced or a new threshold', () => {
    const first = keySet(1, role([root[0]!]));
    expect(rootNeverRotated(first, keySet(2, role(root)))).toBe(false);
    expect(rootNeverRotated(first, keySet(2, role([root[1]!])))).toBe(false);
    const two = keySet(1, role(root, 1));
    expect(rootNeverRotated(two, keySet(2, role(root, 2)))).toBe(false);
    expect(rootNeverRotated(undefined, first)).toBe(false);
  });
});
