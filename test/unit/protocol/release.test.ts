import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '#protocol/protocol-error.js';
import { encodeRelease, parseRelease, releaseDigest, type Release } from '#protocol/release.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';

const sha = (c: string): string => c.repeat(64);
const release: Release = {
  registry_version: '1.2.0',
  artifacts: [
    { name: 'a.txt', size: 3, sha256: sha('a'), url: `api/updates/artifacts/${sha('a')}` },
    {
      name: 'b/c.bin',
      size: 9,
      sha256: sha('b'),
      url: 'https://cdn.example/b',
      chunk_index: { sha256: sha('c'), size: 200, url: 'https://cdn.example/i' },
    },
  ],
};
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

const codeOf = (value: unknown): string | undefined =>
  codeOfAny(
    () => parseRelease(value instanceof Uint8Array ? value : bytesOf(value)),
    ProtocolError,
  );

describe('parseRelease / encodeRelease', () => {
  it('carries signed release notes, and refuses notes with a control character', () => {
    const notes = 'Faster *sync*.\n\n- fixes';
    expect(parseRelease(encodeRelease({ ...release, notes })).notes).toBe(notes);
    expect('notes' in parseRelease(encodeRelease(release))).toBe(false);
    expect(codeOf({ ...release, notes: 'a\u001b[2Jb' })).toBe('MANIFEST_MALFORMED');
    expect(codeOf({ ...release, notes: 7 })).toBe('MANIFEST_MALFORMED');
  });

  it('round-trips, keeping the signed chunk_index of an entry', () => {
    expect(parseRelease(encodeRelease(release))).toEqual(release);
  });

  it('is deterministic: the same release always encodes to the same bytes and digest', () => {
    const again: Release = JSON.parse(JSON.stringify(release)) as Release;
    expect(releaseDigest(encodeRelease(again))).toBe(releaseDigest(encodeRelease(release)));
  });

  it('has no time in it (a release never expires; freshness says how current it is)', () => {
    const text = new TextDecoder().decode(encodeRelease(release));
    expect(text).not.toMatch(/issued_at|expires_at/);
  });

  it('digests the exact payload bytes with SHA-256', () => {
    const bytes = encodeRelease(release);
    expect(releaseDigest(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('ignores unknown fields', () => {
    expect(codeOf({ ...release, channel: 'beta' })).toBeUndefined();
  });

  const refusals: [string, unknown, string][] = [
    ['bytes that are not UTF-8', new Uint8Array([0xff]), 'MANIFEST_MALFORMED'],
    ['a JSON array', [release], 'MANIFEST_MALFORMED'],
    ['a missing registry_version', { artifacts: [] }, 'MANIFEST_MALFORMED'],
    [
      'a registry_version that is not semver',
      { ...release, registry_version: '1.2' },
      'BAD_VERSION',
    ],
    ['missing artifacts', { registry_version: '1.0.0' }, 'MANIFEST_MALFORMED'],
    ['artifacts that are not a list', { ...release, artifacts: {} }, 'MANIFEST_MALFORMED'],
    [
      'an unsafe name',
      { ...release, artifacts: [{ ...release.artifacts[0], name: '../x' }] },
      'UNSAFE_NAME',
    ],
    [
      'a bad digest',
      { ...release, artifacts: [{ ...release.artifacts[0], sha256: 'x' }] },
      'BAD_DIGEST',
    ],
    [
      'unsorted names',
      { ...release, artifacts: [release.artifacts[1], release.artifacts[0]] },
      'UNSORTED_NAMES',
    ],
  ];
  for (const [what, value, code] of refusals) {
    it(`refuses ${what} with ${code}`, () => {
      expect(codeOf(value)).toBe(code);
    });
  }
});
