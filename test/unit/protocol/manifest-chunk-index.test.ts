import { describe, expect, it } from 'vitest';
import {
  encodeManifest,
  MAX_CHUNK_INDEX_BYTES,
  parseManifest,
  type ChunkIndexRef,
  type Manifest,
} from '#protocol/manifest.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';

const sha = (c: string): string => c.repeat(64);
const ref: ChunkIndexRef = {
  sha256: sha('b'),
  size: 400,
  url: `api/updates/artifacts/${sha('b')}`,
  list_url: `api/updates/artifacts/${sha('c')}`,
};
const manifestWith = (chunkIndex: unknown): Record<string, unknown> => ({
  registry_version: '1.0.0',
  issued_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-08T00:00:00Z',
  artifacts: [
    {
      name: 'big.bin',
      size: 10_000_000,
      sha256: sha('a'),
      url: `api/updates/artifacts/${sha('a')}`,
      chunk_index: chunkIndex,
    },
  ],
});
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

const codeOf = (chunkIndex: unknown): string | undefined =>
  codeOfAny(() => parseManifest(bytesOf(manifestWith(chunkIndex))), ProtocolError);

describe('artifact entry chunk_index (docs/PROTOCOL.md §2.6)', () => {
  it('round-trips through encodeManifest and parseManifest', () => {
    const manifest = manifestWith(ref) as unknown as Manifest;
    const parsed = parseManifest(encodeManifest(manifest));
    expect(parsed.artifacts[0]?.chunk_index).toEqual(ref);
  });

  it('is optional: an entry without it parses without the key', () => {
    const { list_url: _omitted, ...noList } = ref;
    const m = manifestWith(noList);
    const parsed = parseManifest(bytesOf(m));
    expect(parsed.artifacts[0]?.chunk_index).toEqual(noList);
    const bare = parseManifest(
      bytesOf({ ...m, artifacts: [{ name: 'a', size: 1, sha256: sha('a'), url: 'x' }] }),
    );
    expect(Object.hasOwn(bare.artifacts[0] ?? {}, 'chunk_index')).toBe(false);
  });

  it('ignores unknown fields inside it', () => {
    expect(codeOf({ ...ref, algorithm: 'future' })).toBeUndefined();
  });

  const refusals: [string, unknown, string][] = [
    ['a chunk_index that is not an object', 'x', 'MANIFEST_MALFORMED'],
    ['a chunk_index that is null', null, 'MANIFEST_MALFORMED'],
    ['a missing sha256', { ...ref, sha256: undefined }, 'MANIFEST_MALFORMED'],
    ['an upper-case sha256', { ...ref, sha256: sha('B') }, 'BAD_DIGEST'],
    ['a size of 0', { ...ref, size: 0 }, 'MANIFEST_MALFORMED'],
    ['a fractional size', { ...ref, size: 1.5 }, 'MANIFEST_MALFORMED'],
    ['a size over the bound', { ...ref, size: MAX_CHUNK_INDEX_BYTES + 1 }, 'MANIFEST_MALFORMED'],
    ['an empty url', { ...ref, url: '' }, 'MANIFEST_MALFORMED'],
    ['a list_url that is not a string', { ...ref, list_url: 7 }, 'MANIFEST_MALFORMED'],
    [
      'a list_url over 2048 characters',
      { ...ref, list_url: 'x'.repeat(2049) },
      'MANIFEST_MALFORMED',
    ],
  ];
  for (const [what, value, code] of refusals) {
    it(`refuses ${what} with ${code}`, () => {
      expect(codeOf(value)).toBe(code);
    });
  }
});
