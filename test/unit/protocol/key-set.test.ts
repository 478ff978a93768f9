import { describe, expect, it } from 'vitest';
import {
  encodeKeySet,
  keyOwners,
  MAX_KEYSET_PAYLOAD_BYTES,
  MAX_ROLE_KEYS,
  parseKeySet,
  pinnedRole,
  sameKeys,
  type KeySetPayload,
} from '#protocol/key-set.js';
import { keyIdOf } from '#protocol/keys.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { newKey, newKeys, newKeySet, payloadOf } from '#test/trust-kit.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';
const codeOf = (run: () => unknown): string | undefined => codeOfAny(run, ProtocolError);

const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('parseKeySet', () => {
  const good: KeySetPayload = payloadOf(newKeySet(3, { release: newKeys(3), releaseThreshold: 2 }));

  it('round-trips encodeKeySet with keyids derived from the keys', () => {
    const ks = parseKeySet(encodeKeySet(good));
    expect(ks.version).toBe(3);
    expect(ks.release.threshold).toBe(2);
    expect(ks.release.keys.map((k) => k.hex)).toEqual(good.release.keys);
    const first = ks.root.keys[0];
    expect(first?.keyid).toBe(keyIdOf(first?.publicKey ?? new Uint8Array()));
  });

  it('encodes the fields in a fixed order and drops unknown ones', () => {
    const text = new TextDecoder().decode(encodeKeySet({ ...good, extra: 1 } as KeySetPayload));
    expect(text.startsWith('{"version":3,"root":{"threshold":1,"keys":["')).toBe(true);
    expect(text).not.toContain('extra');
  });

  it('ignores unknown fields (a newer server may sign more)', () => {
    expect(codeOf(() => parseKeySet(bytesOf({ ...good, mirrors: [] })))).toBeUndefined();
  });

  it(`accepts ${MAX_ROLE_KEYS} keys in a role with a threshold of ${MAX_ROLE_KEYS}`, () => {
    const release = { threshold: MAX_ROLE_KEYS, keys: newKeys(MAX_ROLE_KEYS).map((k) => k.hex) };
    expect(parseKeySet(bytesOf({ ...good, release })).release.keys).toHaveLength(MAX_ROLE_KEYS);
  });

  const hex = newKey().hex;
  const refusals: [string, unknown, string][] = [
    ['bytes that are not UTF-8', new Uint8Array([0xff]), 'MANIFEST_MALFORMED'],
    ['a JSON array', [good], 'MANIFEST_MALFORMED'],
    ['version 0', { ...good, version: 0 }, 'MANIFEST_MALFORMED'],
    ['a fractional version', { ...good, version: 1.5 }, 'MANIFEST_MALFORMED'],
    ['a version as a string', { ...good, version: '1' }, 'MANIFEST_MALFORMED'],
    ['a missing freshness role', { ...good, freshness: undefined }, 'MANIFEST_MALFORMED'],
    ['a role that is not an object', { ...good, root: [hex] }, 'MANIFEST_MALFORMED'],
    ['a missing threshold', { ...good, root: { keys: [hex] } }, 'MANIFEST_MALFORMED'],
    ['threshold 0', { ...good, root: { threshold: 0, keys: [hex] } }, 'MANIFEST_MALFORMED'],
    [
      'a threshold above the number of keys',
      { ...good, root: { threshold: 2, keys: [hex] } },
      'MANIFEST_MALFORMED',
    ],
    ['a role without keys', { ...good, root: { threshold: 1, keys: [] } }, 'MANIFEST_MALFORMED'],
    [
      `more than ${MAX_ROLE_KEYS} keys in a role`,
      { ...good, release: { threshold: 1, keys: newKeys(MAX_ROLE_KEYS + 1).map((k) => k.hex) } },
      'MANIFEST_MALFORMED',
    ],
    [
      'the same key twice in a role',
      { ...good, root: { threshold: 1, keys: [hex, hex] } },
      'MANIFEST_MALFORMED',
    ],
    ['an uppercase key', { ...good, root: { threshold: 1, keys: [hex.toUpperCase()] } }, 'BAD_KEY'],
    ['a short key', { ...good, root: { threshold: 1, keys: [hex.slice(2)] } }, 'BAD_KEY'],
    ['a numeric key', { ...good, root: { threshold: 1, keys: [7] } }, 'BAD_KEY'],
    [
      'one key in two roles (freshness is also release)',
      { ...good, freshness: { threshold: 1, keys: [good.release.keys[0]] } },
      'MANIFEST_MALFORMED',
    ],
    [
      'one key in two roles (root is also freshness)',
      { ...good, freshness: { threshold: 1, keys: [good.root.keys[0]] } },
      'MANIFEST_MALFORMED',
    ],
    [
      `a payload over ${MAX_KEYSET_PAYLOAD_BYTES} bytes`,
      { ...good, padding: 'x'.repeat(MAX_KEYSET_PAYLOAD_BYTES) },
      'MANIFEST_MALFORMED',
    ],
  ];
  for (const [what, value, code] of refusals) {
    it(`refuses ${what} with ${code}`, () => {
      const bytes = value instanceof Uint8Array ? value : bytesOf(value);
      expect(codeOf(() => parseKeySet(bytes))).toBe(code);
    });
  }

  it('encodeKeySet refuses what parseKeySet would (a threshold above n)', () => {
    expect(codeOf(() => encodeKeySet({ ...good, root: { threshold: 2, keys: [hex] } }))).toBe(
      'MANIFEST_MALFORMED',
    );
  });
});

describe('key set helpers', () => {
  it('keyOwners names the role of every key', () => {
    const ks = newKeySet(1);
    const owners = keyOwners(parseKeySet(encodeKeySet(payloadOf(ks))));
    expect(owners.get(ks.root[0]?.keyid ?? '')).toBe('root');
    expect(owners.get(ks.release[0]?.keyid ?? '')).toBe('release');
    expect(owners.get(ks.freshness[0]?.keyid ?? '')).toBe('freshness');
  });

  it('sameKeys compares the key sets of two roles regardless of order', () => {
    const [a, b, c] = newKeys(3).map((k) => k.hex) as [string, string, string];
    const parse = (keys: string[]) =>
      parseKeySet(encodeKeySet({ ...payloadOf(newKeySet(1)), freshness: { threshold: 1, keys } }))
        .freshness;
    expect(sameKeys(parse([a, b]), parse([b, a]))).toBe(true);
    expect(sameKeys(parse([a, b]), parse([a, c]))).toBe(false);
    expect(sameKeys(parse([a]), parse([a, b]))).toBe(false);
  });

  it('pinnedRole makes a threshold-1 root of the pinned keys, duplicates collapsed', () => {
    const key = newKey();
    const role = pinnedRole([key.publicKey, key.publicKey, newKey().publicKey]);
    expect(role.threshold).toBe(1);
    expect(role.keys).toHaveLength(2);
  });

  it(`pinnedRole refuses no key, more than ${MAX_ROLE_KEYS} keys and a short key with BAD_KEY`, () => {
    const many = newKeys(MAX_ROLE_KEYS + 1).map((k) => k.publicKey);
    expect(codeOf(() => pinnedRole(many))).toBe('BAD_KEY');
    expect(codeOf(() => pinnedRole([]))).toBe('BAD_KEY');
    expect(codeOf(() => pinnedRole([new Uint8Array(31)]))).toBe('BAD_KEY');
  });
});
