import { describe, expect, it } from 'vitest';
import {
  encodeManifest,
  isRfc3339,
  isStrictSemver,
  MAX_ARTIFACTS_WIRE,
  parseArtifactList,
  parseManifest,
  resolveArtifactUrl,
  type Manifest,
  type ManifestArtifact,
} from '#protocol/manifest.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';

const sha = (c: string): string => c.repeat(64);
const art = (name: string, extra: Partial<ManifestArtifact> = {}): ManifestArtifact => ({
  name,
  size: 3,
  sha256: sha('a'),
  url: `api/updates/artifacts/${sha('a')}`,
  ...extra,
});
const base: Manifest = {
  registry_version: '1.2.3',
  issued_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-08T00:00:00Z',
  artifacts: [art('a.txt'), art('b/c.bin')],
};
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

const codeOf = (value: unknown): string | undefined =>
  codeOfAny(
    () => parseManifest(value instanceof Uint8Array ? value : bytesOf(value)),
    ProtocolError,
  );

describe('parseManifest', () => {
  it('round-trips encodeManifest and reports the timestamps in epoch ms', () => {
    const parsed = parseManifest(encodeManifest(base));
    expect(parsed.registry_version).toBe('1.2.3');
    expect(parsed.artifacts).toEqual(base.artifacts);
    expect(parsed.expiresAtMs - parsed.issuedAtMs).toBe(7 * 86_400_000);
  });

  it('ignores unknown fields (a newer server may sign more)', () => {
    expect(codeOf({ ...base, channel: 'beta' })).toBeUndefined();
  });

  it('encodes only the known fields, in a fixed order', () => {
    const extra = { ...base, channel: 'beta' } as Manifest;
    const text = new TextDecoder().decode(encodeManifest(extra));
    expect(text.startsWith('{"registry_version":"1.2.3","issued_at":')).toBe(true);
    expect(text).not.toContain('channel');
  });

  const refusals: [string, unknown, string][] = [
    ['bytes that are not UTF-8', new Uint8Array([0xff]), 'MANIFEST_MALFORMED'],
    ['a JSON array', [base], 'MANIFEST_MALFORMED'],
    ['a missing registry_version', { ...base, registry_version: undefined }, 'MANIFEST_MALFORMED'],
    ['a registry_version with a leading v', { ...base, registry_version: 'v1.2.3' }, 'BAD_VERSION'],
    [
      'a registry_version with build metadata',
      { ...base, registry_version: '1.2.3+b' },
      'BAD_VERSION',
    ],
    ['a numeric registry_version', { ...base, registry_version: 1 }, 'BAD_VERSION'],
    [
      'an issued_at that is not RFC 3339',
      { ...base, issued_at: '2026-01-01' },
      'MANIFEST_MALFORMED',
    ],
    [
      'an expires_at before issued_at',
      { ...base, expires_at: '2025-01-01T00:00:00Z' },
      'MANIFEST_MALFORMED',
    ],
    ['artifacts that are not a list', { ...base, artifacts: {} }, 'MANIFEST_MALFORMED'],
    ['an artifact that is not an object', { ...base, artifacts: ['a'] }, 'MANIFEST_MALFORMED'],
    [
      'an artifact without url',
      { ...base, artifacts: [{ name: 'a', size: 1, sha256: sha('a') }] },
      'MANIFEST_MALFORMED',
    ],
    ['a negative size', { ...base, artifacts: [art('a', { size: -1 })] }, 'MANIFEST_MALFORMED'],
    ['a fractional size', { ...base, artifacts: [art('a', { size: 1.5 })] }, 'MANIFEST_MALFORMED'],
    ['an uppercase digest', { ...base, artifacts: [art('a', { sha256: sha('A') })] }, 'BAD_DIGEST'],
    ['an empty url', { ...base, artifacts: [art('a', { url: '' })] }, 'MANIFEST_MALFORMED'],
    ['a ".." name', { ...base, artifacts: [art('../a')] }, 'UNSAFE_NAME'],
    ['an absolute name', { ...base, artifacts: [art('/a')] }, 'UNSAFE_NAME'],
    ['a backslash name', { ...base, artifacts: [art('a\\b')] }, 'UNSAFE_NAME'],
    ['a drive-letter name', { ...base, artifacts: [art('C:a')] }, 'UNSAFE_NAME'],
    ['duplicate names', { ...base, artifacts: [art('a'), art('a')] }, 'DUPLICATE_NAME'],
    [
      'names differing only by case',
      { ...base, artifacts: [art('A'), art('a')] },
      'DUPLICATE_NAME',
    ],
    ['unsorted names', { ...base, artifacts: [art('b'), art('a')] }, 'UNSORTED_NAMES'],
    [
      'a name that is also a directory',
      { ...base, artifacts: [art('a'), art('a/b')] },
      'UNSAFE_NAME',
    ],
    [
      'a directory met again after files of its parent (each directory is listed once)',
      { ...base, artifacts: ['x/a', 'x/b', 'x/c', 'x/c/d', 'x/c/e'].map((n) => art(n)) },
      'UNSAFE_NAME',
    ],
    [
      'a deep name that is also a directory of later names',
      { ...base, artifacts: ['p/q/r', 'p/q/r/s', 'p/q/r/t'].map((n) => art(n)) },
      'UNSAFE_NAME',
    ],
    [
      'a name that is also a directory of the same length as the one before',
      { ...base, artifacts: ['ab/x', 'cd', 'cd/y'].map((n) => art(n)) },
      'UNSAFE_NAME',
    ],
    [
      'a name that is a directory of another but for case',
      { ...base, artifacts: [art('D/e/f'), art('d/E')] },
      'UNSAFE_NAME',
    ],
  ];
  for (const [what, value, code] of refusals) {
    it(`refuses ${what} with ${code}`, () => {
      expect(codeOf(value)).toBe(code);
    });
  }
});

describe('isStrictSemver / isRfc3339', () => {
  it('accepts a prerelease semver and refuses whitespace', () => {
    expect(isStrictSemver('1.0.0-rc.1')).toBe(true);
    expect(isStrictSemver(' 1.0.0')).toBe(false);
  });
  it('accepts offsets and fractions, refuses an impossible date', () => {
    expect(isRfc3339('2026-01-01T00:00:00.123+02:00')).toBe(true);
    expect(isRfc3339('2026-13-01T00:00:00Z')).toBe(false);
  });
});

describe('resolveArtifactUrl', () => {
  it('refuses a URL that does not parse as MANIFEST_MALFORMED, not a TypeError', () => {
    expect(() => resolveArtifactUrl('http://h/', 'http://[bad')).toThrow(
      expect.objectContaining({ code: 'MANIFEST_MALFORMED' }),
    );
  });

  it('keeps a base path prefix (the base URL is a directory)', () => {
    expect(resolveArtifactUrl('http://h:1/prefix', 'api/updates/artifacts/x').href).toBe(
      'http://h:1/prefix/api/updates/artifacts/x',
    );
  });
  it('resolves against a base that already ends in a slash', () => {
    expect(resolveArtifactUrl('http://h/', 'a/b').href).toBe('http://h/a/b');
  });
  it('keeps an absolute https URL (a CDN) as is', () => {
    expect(resolveArtifactUrl('http://h', 'https://cdn.example/x').href).toBe(
      'https://cdn.example/x',
    );
  });
  it('refuses a file: URL', () => {
    expect(() => resolveArtifactUrl('http://h', 'file:///etc/passwd')).toThrow(ProtocolError);
  });
  it('refuses a data: URL', () => {
    expect(() => resolveArtifactUrl('http://h', 'data:,x')).toThrow(ProtocolError);
  });
});

describe('parseArtifactList with listChecked (bytes that passed it before)', () => {
  const codeOfList = (list: unknown, listChecked: boolean): string | undefined => {
    try {
      parseArtifactList(list, { listChecked });
    } catch (error) {
      return error instanceof ProtocolError ? error.code : 'NOT_A_PROTOCOL_ERROR';
    }
    return undefined;
  };

  it('does not walk the entries again', () => {
    const unsafe = [art('../a.txt')];
    expect(codeOfList(unsafe, false)).toBe('UNSAFE_NAME');
    expect(codeOfList(unsafe, true)).toBeUndefined();
    expect(parseArtifactList(unsafe, { listChecked: true })).toBe(unsafe);
  });

  it('still refuses what is not an array, or an array over the wire ceiling', () => {
    expect(codeOfList({ name: 'a.txt' }, true)).toBe('MANIFEST_MALFORMED');
    expect(codeOfList(new Array<unknown>(MAX_ARTIFACTS_WIRE + 1).fill(null), true)).toBe(
      'MANIFEST_MALFORMED',
    );
  });

  it('is what parseManifest does with the option, the top level still checked', () => {
    const manifest = { ...base, artifacts: [art('b.txt'), art('a.txt')] };
    expect(codeOf(manifest)).toBe('UNSORTED_NAMES');
    const parsed = parseManifest(bytesOf(manifest), { listChecked: true });
    expect(parsed.artifacts.map((a) => a.name)).toEqual(['b.txt', 'a.txt']);
    const badTop = bytesOf({ ...manifest, registry_version: 'v1' });
    expect(() => parseManifest(badTop, { listChecked: true })).toThrow(ProtocolError);
  });
});
