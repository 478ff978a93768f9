import { describe, expect, it } from 'vitest';
import { parseEnvelope, type RoleType } from '#protocol/tuf/index.js';

const EXPIRES = '2030-01-01T00:00:00Z';
const KEY = { keytype: 'ed25519', scheme: 'ed25519', keyval: { public: 'ab'.repeat(32) } };
const ROLE = { keyids: ['k1'], threshold: 1 };

function rootSigned(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    _type: 'root',
    spec_version: '1.0.31',
    version: 1,
    expires: EXPIRES,
    consistent_snapshot: true,
    keys: { k1: KEY },
    roles: { root: ROLE, timestamp: ROLE, snapshot: ROLE, targets: ROLE },
    ...overrides,
  };
}

function doc(signed: unknown, signatures: unknown = [{ keyid: 'k1', sig: 'aa' }]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ signatures, signed }));
}

function refusal(bytes: Uint8Array, type: RoleType = 'root'): unknown {
  try {
    parseEnvelope(bytes, type);
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return 'accepted';
}

describe('parseEnvelope (TUF spec §4)', () => {
  it('parses a root, keeping raw bytes and the canonical signed bytes', () => {
    const bytes = doc(rootSigned({ custom: { z: 1, a: 2 } }));
    const envelope = parseEnvelope(bytes, 'root');
    expect(envelope.signed.consistentSnapshot).toBe(true);
    expect(envelope.signed.keys.get('k1')?.publicValue).toBe('ab'.repeat(32));
    expect(envelope.raw).toBe(bytes);
    expect(new TextDecoder().decode(envelope.signedBytes)).toContain('"custom":{"a":2,"z":1}');
  });

  it('keeps a key of an unknown type (it just never verifies)', () => {
    const keys = { k1: KEY, k2: { keytype: 'sphincs', scheme: 'x', keyval: { blob: 'y' } } };
    expect(parseEnvelope(doc(rootSigned({ keys })), 'root').signed.keys.get('k2')).toMatchObject({
      keytype: 'sphincs',
      publicValue: undefined,
    });
  });

  it('refuses another role than the one expected (WRONG_TYPE)', () => {
    expect(refusal(doc(rootSigned()), 'timestamp')).toBe('WRONG_TYPE');
  });

  it('refuses a keyid signing twice (DUPLICATE_SIGNATURE)', () => {
    const sig = { keyid: 'k1', sig: 'aa' };
    expect(refusal(doc(rootSigned(), [sig, sig]))).toBe('DUPLICATE_SIGNATURE');
  });

  it('refuses spec_version 2.x (UNSUPPORTED_SPEC_VERSION)', () => {
    expect(refusal(doc(rootSigned({ spec_version: '2.0.0' })))).toBe('UNSUPPORTED_SPEC_VERSION');
  });

  it.each([
    ['version 0', { version: 0 }],
    ['a string version', { version: '1' }],
    ['expires with fractions', { expires: '2030-01-01T00:00:00.5Z' }],
    ['expires on a day that does not exist', { expires: '2030-02-30T00:00:00Z' }],
    [
      'a fifth role',
      { roles: { root: ROLE, timestamp: ROLE, snapshot: ROLE, targets: ROLE, x: ROLE } },
    ],
    ['a missing role', { roles: { root: ROLE, timestamp: ROLE, snapshot: ROLE } }],
    [
      'a repeated keyid in a role',
      {
        roles: {
          root: { keyids: ['k1', 'k1'], threshold: 1 },
          timestamp: ROLE,
          snapshot: ROLE,
          targets: ROLE,
        },
      },
    ],
    [
      'threshold 0',
      {
        roles: {
          root: { keyids: ['k1'], threshold: 0 },
          timestamp: ROLE,
          snapshot: ROLE,
          targets: ROLE,
        },
      },
    ],
    ['a non-boolean consistent_snapshot', { consistent_snapshot: 'yes' }],
  ])('refuses %s (METADATA_MALFORMED)', (_what, overrides) => {
    expect(refusal(doc(rootSigned(overrides)))).toBe('METADATA_MALFORMED');
  });

  it('refuses a document without signatures (METADATA_MALFORMED)', () => {
    expect(refusal(new TextEncoder().encode(JSON.stringify({ signed: rootSigned() })))).toBe(
      'METADATA_MALFORMED',
    );
  });

  it('refuses duplicate members inside signed (JSON_DUPLICATE_MEMBER)', () => {
    const text = new TextDecoder()
      .decode(doc(rootSigned()))
      .replace('"version":1', '"version":1,"version":2');
    expect(refusal(new TextEncoder().encode(text))).toBe('JSON_DUPLICATE_MEMBER');
  });

  it('parses timestamp and snapshot META_FILEs, hashes in written order', () => {
    const meta = { version: 3, length: 10, hashes: { sha512: 'bb', sha256: 'aa' } };
    const timestamp = {
      _type: 'timestamp',
      spec_version: '1.0',
      version: 1,
      expires: EXPIRES,
      meta: { 'snapshot.json': meta },
    };
    const parsed = parseEnvelope(doc(timestamp), 'timestamp').signed.snapshotMeta;
    expect([...(parsed.hashes ?? new Map()).keys()]).toEqual(['sha512', 'sha256']);
    expect(parsed.length).toBe(10);
  });

  it('refuses a timestamp without snapshot.json, and empty hashes (METADATA_MALFORMED)', () => {
    const base = { _type: 'timestamp', spec_version: '1.0', version: 1, expires: EXPIRES };
    expect(refusal(doc({ ...base, meta: {} }), 'timestamp')).toBe('METADATA_MALFORMED');
    const empty = { 'snapshot.json': { version: 1, hashes: {} } };
    expect(refusal(doc({ ...base, meta: empty }), 'timestamp')).toBe('METADATA_MALFORMED');
  });

  describe('targets and delegations', () => {
    const targetsBase = {
      _type: 'targets',
      spec_version: '1.0',
      version: 1,
      expires: EXPIRES,
      targets: {},
    };
    const role = { name: 'a', keyids: ['k1'], threshold: 1, terminating: false, paths: ['*'] };

    it('parses delegated roles and succinct roles', () => {
      const roles = parseEnvelope(
        doc({ ...targetsBase, delegations: { keys: {}, roles: [role] } }),
        'targets',
      );
      expect(roles.signed.delegations?.roles?.[0]).toMatchObject({ name: 'a', paths: ['*'] });
      const succinct = { keyids: ['k1'], threshold: 1, bit_length: 8, name_prefix: 'bin' };
      const bins = parseEnvelope(
        doc({ ...targetsBase, delegations: { keys: {}, succinct_roles: succinct } }),
        'targets',
      );
      expect(bins.signed.delegations?.succinctRoles).toMatchObject({
        bitLength: 8,
        namePrefix: 'bin',
      });
    });

    it.each([
      [
        'both roles and succinct_roles',
        {
          keys: {},
          roles: [role],
          succinct_roles: { keyids: [], threshold: 1, bit_length: 1, name_prefix: 'b' },
        },
      ],
      ['neither roles nor succinct_roles', { keys: {} }],
      ['a repeated role name', { keys: {}, roles: [role, role] }],
      ['a top-level role name', { keys: {}, roles: [{ ...role, name: 'snapshot' }] }],
      [
        'paths and path_hash_prefixes',
        { keys: {}, roles: [{ ...role, path_hash_prefixes: ['ab'] }] },
      ],
      [
        'bit_length 33',
        {
          keys: {},
          succinct_roles: { keyids: [], threshold: 1, bit_length: 33, name_prefix: 'b' },
        },
      ],
    ])('refuses %s (METADATA_MALFORMED)', (_what, delegations) => {
      expect(refusal(doc({ ...targetsBase, delegations }), 'targets')).toBe('METADATA_MALFORMED');
    });

    it('refuses a target without hashes (METADATA_MALFORMED)', () => {
      const targets = { f: { length: 1 } };
      expect(refusal(doc({ ...targetsBase, targets }), 'targets')).toBe('METADATA_MALFORMED');
    });
  });
});
