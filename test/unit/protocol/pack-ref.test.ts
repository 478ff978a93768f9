import { describe, expect, it } from 'vitest';
import { encodeManifest, parseManifest, type Manifest } from '#protocol/manifest.js';
import {
  MAX_PACK_BYTES,
  MAX_PACK_MEMBER_BYTES,
  packTableOf,
  type PackInfo,
  type PackRef,
} from '#protocol/pack-ref.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { encodeRelease, parseRelease } from '#protocol/release.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';

const sha = (c: string): string => c.repeat(64);
const row: PackInfo = { sha256: sha('b'), size: 8192, url: `api/updates/artifacts/${sha('b')}` };
const head = {
  registry_version: '1.0.0',
  issued_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-08T00:00:00Z',
};
/** A manifest of one 4 KiB entry with `fields` and the table `packs` ('none': no table). */
const manifestWith = (
  fields: Record<string, unknown>,
  packs: unknown = [row],
  size = 4096,
): Record<string, unknown> => ({
  ...head,
  artifacts: [{ name: 'a.txt', size, sha256: sha('a'), url: 'x', ...fields }],
  ...(packs === 'none' ? {} : { packs }),
});
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const codeOf = (value: Record<string, unknown>): string | undefined =>
  codeOfAny(() => parseManifest(bytesOf(value)), ProtocolError);
const member = { pack: 0, pack_offset: 4096 };

describe('packs on the wire (docs/PROTOCOL.md §2.8)', () => {
  const refs: PackRef[] = [
    { ...row, offset: 0 },
    { ...row, offset: 4096 },
  ];
  const twoMembers: Manifest = {
    ...head,
    artifacts: [
      { name: 'a', size: 4096, sha256: sha('a'), url: 'x', pack: refs[0] as PackRef },
      { name: 'b', size: 4096, sha256: sha('c'), url: 'y', pack: refs[1] as PackRef },
      { name: 'c', size: 1, sha256: sha('d'), url: 'z' },
    ],
  };

  it('signs each pack once in a table and each entry by index and offset', () => {
    const wire = JSON.parse(new TextDecoder().decode(encodeManifest(twoMembers))) as {
      artifacts: Record<string, unknown>[];
      packs: unknown[];
    };
    expect(wire.packs).toEqual([row]);
    expect(wire.artifacts[1]).toEqual({
      name: 'b',
      size: 4096,
      sha256: sha('c'),
      url: 'y',
      pack: 0,
      pack_offset: 4096,
    });
    expect(Object.hasOwn(wire.artifacts[2] ?? {}, 'pack')).toBe(false);
  });

  it('round-trips through encodeManifest and parseManifest, and the release payload', () => {
    expect(parseManifest(encodeManifest(twoMembers)).artifacts).toEqual(twoMembers.artifacts);
    const release = { registry_version: '1.0.0', artifacts: twoMembers.artifacts };
    expect(parseRelease(encodeRelease(release)).artifacts).toEqual(twoMembers.artifacts);
  });

  it('resolves packs the same way for bytes already checked (listChecked)', () => {
    const bytes = encodeManifest(twoMembers);
    expect(parseManifest(bytes, { listChecked: true }).artifacts).toEqual(twoMembers.artifacts);
  });

  it('signs a list without packs as before: no table', () => {
    const bare: Manifest = {
      ...head,
      artifacts: [{ name: 'a', size: 1, sha256: sha('a'), url: 'x' }],
    };
    const wire = JSON.parse(new TextDecoder().decode(encodeManifest(bare))) as object;
    expect(Object.hasOwn(wire, 'packs')).toBe(false);
  });

  it('keeps two packs of the same digest but another URL apart', () => {
    const other = { ...row, url: 'elsewhere', offset: 0 };
    expect(packTableOf([{ ...row, offset: 0 }, other, undefined]).indexOf).toEqual([0, 1, -1]);
  });

  it('ignores unknown fields of a row, and rows no entry names', () => {
    expect(codeOf(manifestWith(member, [{ ...row, coding: 'future' }, row]))).toBeUndefined();
  });

  it('accepts a member that ends exactly at the end of the pack', () => {
    expect(codeOf(manifestWith(member))).toBeUndefined();
  });

  const entryRefusals: [string, Record<string, unknown>, unknown, number?][] = [
    ['a pack without pack_offset', { pack: 0 }, [row]],
    ['a pack_offset without pack', { pack_offset: 0 }, [row]],
    ['a pack with no table', member, 'none'],
    ['an index past the table', { ...member, pack: 1 }, [row]],
    ['a negative index', { ...member, pack: -1 }, [row]],
    ['an index as text', { ...member, pack: '0' }, [row]],
    ['the old inline object', { pack: { ...row, offset: 0 } }, [row]],
    ['a negative offset', { ...member, pack_offset: -1 }, [row]],
    ['a fractional offset', { ...member, pack_offset: 1.5 }, [row]],
    ['a member past the end', { ...member, pack_offset: 4097 }, [row]],
    ['an empty member', { ...member, pack_offset: 0 }, [row], 0],
    [
      'a member over the ceiling',
      { ...member, pack_offset: 0 },
      [{ ...row, size: MAX_PACK_BYTES }],
      MAX_PACK_MEMBER_BYTES + 1,
    ],
  ];
  for (const [why, fields, packs, size] of entryRefusals) {
    it(`refuses an entry with ${why} (MANIFEST_MALFORMED)`, () => {
      expect(codeOf(manifestWith(fields, packs, size))).toBe('MANIFEST_MALFORMED');
    });
  }

  const rowRefusals: [string, unknown, string][] = [
    ['a table that is not an array', { 0: row }, 'MANIFEST_MALFORMED'],
    ['a row that is not an object', ['pack'], 'MANIFEST_MALFORMED'],
    ['a null row', [null], 'MANIFEST_MALFORMED'],
    ['no sha256', [{ ...row, sha256: undefined }], 'MANIFEST_MALFORMED'],
    ['an uppercase sha256', [{ ...row, sha256: sha('B') }], 'BAD_DIGEST'],
    ['a short sha256', [{ ...row, sha256: 'ab' }], 'BAD_DIGEST'],
    ['no size', [{ ...row, size: undefined }], 'MANIFEST_MALFORMED'],
    ['a zero size', [{ ...row, size: 0 }], 'MANIFEST_MALFORMED'],
    ['a fractional size', [{ ...row, size: 8192.5 }], 'MANIFEST_MALFORMED'],
    ['a size as text', [{ ...row, size: '8192' }], 'MANIFEST_MALFORMED'],
    ['a size over the ceiling', [{ ...row, size: MAX_PACK_BYTES + 1 }], 'MANIFEST_MALFORMED'],
    ['no url', [{ ...row, url: undefined }], 'MANIFEST_MALFORMED'],
    ['an empty url', [{ ...row, url: '' }], 'MANIFEST_MALFORMED'],
    ['a url over 2048', [{ ...row, url: 'x'.repeat(2049) }], 'MANIFEST_MALFORMED'],
  ];
  for (const [why, packs, code] of rowRefusals) {
    it(`refuses a table with ${why} (${code}), even when no entry names it`, () => {
      // JSON.stringify drops the undefined fields: the key is then missing.
      expect(codeOf(manifestWith({}, packs))).toBe(code);
    });
  }
});
