import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tuf } from '#protocol';
import { verifiedFromTargets } from '#core/trust/index.js';
import { roleKeys, signedTargets } from '#test/tuf-metadata-kit.js';

const NOW = Date.UTC(2026, 10, 1);
const keys = roleKeys();
const hex = (c: string) => c.repeat(64);
const urlOf = (t: tuf.TargetFile) => `https://r.example/api/updates/tuf/targets/${t.path}`;

function manifestOf(bytes: Uint8Array) {
  const targets = tuf.parseEnvelope(bytes, 'targets');
  return verifiedFromTargets({ targets, urlOf, freshUntilMs: NOW + 1000, nowMs: NOW });
}

describe('verifiedFromTargets', () => {
  it('makes each target a manifest artifact, sorted, with the target bytes as set id', () => {
    const bytes = signedTargets(
      keys.targets,
      '2.0.0',
      [
        { path: 'lib/z.so', length: 5, sha256: hex('b') },
        { path: 'bin/app', length: 3, sha256: hex('a') },
      ],
      NOW,
    );
    const v = manifestOf(bytes);
    expect(v.format).toBe('tuf');
    expect(v.manifest.registry_version).toBe('2.0.0');
    expect(v.manifest.artifacts.map((a) => [a.name, a.size, a.sha256])).toEqual([
      ['bin/app', 3, hex('a')],
      ['lib/z.so', 5, hex('b')],
    ]);
    expect(v.manifest.artifacts[0]?.url).toBe('https://r.example/api/updates/tuf/targets/bin/app');
    expect(v.setId).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(v.envelope).toEqual(bytes);
  });

  it('passes custom fields through the manifest artifact parser (chunk_index)', () => {
    const chunk_index = { sha256: hex('c'), size: 200, url: 'api/updates/artifacts/x' };
    const bytes = signedTargets(
      keys.targets,
      '1.0.0',
      [{ path: 'app', length: 9, sha256: hex('a'), custom: { chunk_index } }],
      NOW,
    );
    expect(manifestOf(bytes).manifest.artifacts[0]?.chunk_index).toEqual(chunk_index);
  });

  it('lets no custom field override the signed length and hash', () => {
    const bytes = signedTargets(
      keys.targets,
      '1.0.0',
      [{ path: 'app', length: 9, sha256: hex('a'), custom: { sha256: hex('e'), size: 1 } }],
      NOW,
    );
    const a = manifestOf(bytes).manifest.artifacts[0];
    expect([a?.size, a?.sha256]).toEqual([9, hex('a')]);
  });

  it('refuses a malformed custom field as the manifest parser does (MANIFEST_MALFORMED)', () => {
    const bytes = signedTargets(
      keys.targets,
      '1.0.0',
      [{ path: 'app', length: 9, sha256: hex('a'), custom: { chunk_index: 'nope' } }],
      NOW,
    );
    expect(() => manifestOf(bytes)).toThrow(
      expect.objectContaining({ code: 'MANIFEST_MALFORMED' }),
    );
  });

  it('refuses an unsafe target name (UNSAFE_NAME)', () => {
    const bytes = signedTargets(
      keys.targets,
      '1.0.0',
      [{ path: '../x', length: 1, sha256: hex('a') }],
      NOW,
    );
    expect(() => manifestOf(bytes)).toThrow(expect.objectContaining({ code: 'UNSAFE_NAME' }));
  });

  it('refuses targets without custom.registry_version (MANIFEST_MALFORMED)', () => {
    const bytes = signedTargets(keys.targets, undefined, [], NOW);
    expect(() => manifestOf(bytes)).toThrow(
      expect.objectContaining({ code: 'MANIFEST_MALFORMED' }),
    );
  });

  it('carries custom.notes as the manifest notes, judged as the manifest judges them', () => {
    const notes = '# 1.2.0\n\n- faster\n';
    const withNotes = signedTargets(keys.targets, '1.2.0', [], NOW, 1, { notes });
    expect(manifestOf(withNotes).manifest.notes).toBe(notes);
    expect(
      manifestOf(signedTargets(keys.targets, '1.2.0', [], NOW)).manifest.notes,
    ).toBeUndefined();
    for (const bad of [42, 'turn \u202e around', 'x'.repeat(16 * 1024 + 1)]) {
      const bytes = signedTargets(keys.targets, '1.2.0', [], NOW, 1, { notes: bad });
      expect(() => manifestOf(bytes)).toThrow(
        expect.objectContaining({ code: 'MANIFEST_MALFORMED' }),
      );
    }
  });

  describe('packs (docs/PROTOCOL.md §2.8: the table in the targets custom.packs)', () => {
    const row = { sha256: hex('d'), size: 8, url: 'api/updates/artifacts/d' };
    const files = (first: tuf.JsonObject): tuf.TargetSpec[] => [
      { path: 'a', length: 4, sha256: hex('a'), custom: first },
      { path: 'b', length: 4, sha256: hex('b'), custom: { pack: 0, pack_offset: 4 } },
    ];
    const packed = (first: tuf.JsonObject, packs: unknown = [row]): Uint8Array =>
      signedTargets(keys.targets, '1.0.0', files(first), NOW, 1, { packs } as tuf.JsonObject);

    it('resolves each target pack through the table, checked or already checked', () => {
      const bytes = packed({ pack: 0, pack_offset: 0 });
      const want = [
        { ...row, offset: 0 },
        { ...row, offset: 4 },
      ];
      expect(manifestOf(bytes).manifest.artifacts.map((a) => a.pack)).toEqual(want);
      const targets = tuf.parseEnvelope(bytes, 'targets');
      const checkedDigest = createHash('sha256').update(bytes).digest('hex');
      const again = verifiedFromTargets({
        targets,
        urlOf,
        freshUntilMs: NOW + 1000,
        nowMs: NOW,
        checkedDigest,
      });
      expect(again.manifest.artifacts.map((a) => a.pack)).toEqual(want);
    });

    const refusals: [string, tuf.JsonObject, unknown][] = [
      ['an index past the table', { pack: 1, pack_offset: 0 }, [row]],
      ['a member past the end of its pack', { pack: 0, pack_offset: 5 }, [row]],
      ['the old inline object', { pack: { ...row, offset: 0 } }, [row]],
      ['a table that is not an array', { pack: 0, pack_offset: 0 }, { 0: row }],
    ];
    for (const [why, first, packs] of refusals) {
      it(`refuses ${why} (MANIFEST_MALFORMED)`, () => {
        expect(() => manifestOf(packed(first, packs))).toThrow(
          expect.objectContaining({ code: 'MANIFEST_MALFORMED' }),
        );
      });
    }
  });
});
