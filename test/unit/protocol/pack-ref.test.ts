import { describe, expect, it } from 'vitest';
import { encodeManifest, parseManifest, type Manifest } from '#protocol/manifest.js';
import { MAX_PACK_BYTES, MAX_PACK_MEMBER_BYTES, type PackRef } from '#protocol/pack-ref.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';

const sha = (c: string): string => c.repeat(64);
const pack: PackRef = {
  sha256: sha('b'),
  size: 8192,
  url: `api/updates/artifacts/${sha('b')}`,
  offset: 4096,
};
const manifestWith = (ref: unknown, size = 4096): Record<string, unknown> => ({
  registry_version: '1.0.0',
  issued_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-08T00:00:00Z',
  artifacts: [{ name: 'a.txt', size, sha256: sha('a'), url: 'x', pack: ref }],
});
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const codeOf = (ref: unknown, size?: number): string | undefined =>
  codeOfAny(() => parseManifest(bytesOf(manifestWith(ref, size))), ProtocolError);

describe('artifact entry pack (docs/PROTOCOL.md §2.8)', () => {
  it('round-trips through encodeManifest and parseManifest', () => {
    const parsed = parseManifest(encodeManifest(manifestWith(pack) as unknown as Manifest));
    expect(parsed.artifacts[0]?.pack).toEqual(pack);
  });

  it('is optional: an entry without it has no pack key', () => {
    const m = manifestWith(pack);
    const bare = parseManifest(
      bytesOf({ ...m, artifacts: [{ name: 'a', size: 1, sha256: sha('a'), url: 'x' }] }),
    );
    expect(Object.hasOwn(bare.artifacts[0] ?? {}, 'pack')).toBe(false);
  });

  it('ignores unknown fields inside it', () => {
    expect(codeOf({ ...pack, coding: 'future' })).toBeUndefined();
  });

  it('accepts a member that ends exactly at the end of the pack', () => {
    expect(codeOf({ ...pack, offset: 4096 })).toBeUndefined();
  });

  const refusals: [string, unknown, string, number?][] = [
    ['not an object', 'pack', 'MANIFEST_MALFORMED'],
    ['an array', [pack], 'MANIFEST_MALFORMED'],
    ['null', null, 'MANIFEST_MALFORMED'],
    ['no sha256', { ...pack, sha256: undefined }, 'MANIFEST_MALFORMED'],
    ['an uppercase sha256', { ...pack, sha256: sha('B') }, 'BAD_DIGEST'],
    ['a short sha256', { ...pack, sha256: 'ab' }, 'BAD_DIGEST'],
    ['no size', { ...pack, size: undefined }, 'MANIFEST_MALFORMED'],
    ['a zero size', { ...pack, size: 0 }, 'MANIFEST_MALFORMED'],
    ['a fractional size', { ...pack, size: 8192.5 }, 'MANIFEST_MALFORMED'],
    ['a size as text', { ...pack, size: '8192' }, 'MANIFEST_MALFORMED'],
    ['a size over the ceiling', { ...pack, size: MAX_PACK_BYTES + 1 }, 'MANIFEST_MALFORMED'],
    ['no offset', { ...pack, offset: undefined }, 'MANIFEST_MALFORMED'],
    ['a negative offset', { ...pack, offset: -1 }, 'MANIFEST_MALFORMED'],
    ['a fractional offset', { ...pack, offset: 1.5 }, 'MANIFEST_MALFORMED'],
    ['a member past the end', { ...pack, offset: 4097 }, 'MANIFEST_MALFORMED'],
    ['no url', { ...pack, url: undefined }, 'MANIFEST_MALFORMED'],
    ['an empty url', { ...pack, url: '' }, 'MANIFEST_MALFORMED'],
    ['a url over 2048', { ...pack, url: 'x'.repeat(2049) }, 'MANIFEST_MALFORMED'],
    ['an empty member', { ...pack, offset: 0 }, 'MANIFEST_MALFORMED', 0],
    [
      'a member over the ceiling',
      { ...pack, size: MAX_PACK_BYTES, offset: 0 },
      'MANIFEST_MALFORMED',
      MAX_PACK_MEMBER_BYTES + 1,
    ],
  ];
  for (const [why, ref, code, size] of refusals) {
    it(`refuses a pack with ${why} (${code})`, () => {
      // JSON.stringify drops the undefined fields: the key is then missing.
      expect(codeOf(ref, size)).toBe(code);
    });
  }
});
