import { describe, expect, it } from 'vitest';
import { coalesceRanges } from '#core/chunks/index.js';
import { PACK_COALESCE_RULE, splitByPack } from '#core/packs/index.js';
import type { ManifestArtifact } from '#protocol/manifest.js';

const sha = (n: number): string => n.toString(16).padStart(64, '0');
const PACK = { sha256: 'a'.repeat(64), size: 1_000_000, url: 'packs/a' };

function member(n: number, offset: number, size = 100, pack = PACK): ManifestArtifact {
  return { name: `f${n}`, size, sha256: sha(n), url: `u/${n}`, pack: { ...pack, offset } };
}

describe('splitByPack (docs/UPDATER.md §11)', () => {
  it('groups members by pack, sorted by offset, with their signed hashes as bytes', () => {
    const other = { ...PACK, sha256: 'b'.repeat(64), url: 'packs/b' };
    const todo = [
      member(1, 500),
      member(2, 0),
      member(3, 0, 100, other),
      member(4, 100, 100, other),
    ];
    const { packs, single } = splitByPack(todo);
    expect(single).toEqual([]);
    expect(packs.map((p) => p.members.map((m) => m.artifact.name))).toEqual([
      ['f2', 'f1'],
      ['f3', 'f4'],
    ]);
    expect(Buffer.from(packs[0]?.members[0]?.sha256 ?? []).toString('hex')).toBe(sha(2));
  });

  it('fetches whole an artifact without a pack, and a lone member of its pack', () => {
    const bare: ManifestArtifact = { name: 'x', size: 5, sha256: sha(9), url: 'u/x' };
    const { packs, single } = splitByPack([bare, member(1, 0)]);
    expect(packs).toEqual([]);
    expect(single.map((a) => a.name)).toEqual(['x', 'f1']);
  });

  it('fetches whole a member that overlaps another, or that names the pack differently', () => {
    const todo = [
      member(1, 0),
      member(2, 50),
      member(3, 200),
      member(4, 400, 100, { ...PACK, size: 999 }),
    ];
    const { packs, single } = splitByPack(todo);
    expect(packs[0]?.members.map((m) => m.artifact.name)).toEqual(['f1', 'f3']);
    expect(single.map((a) => a.name).sort()).toEqual(['f2', 'f4']);
  });

  it('coalesces members across gaps of up to 64 KiB into one range', () => {
    const todo = [member(1, 0), member(2, 100 + 64 * 1024), member(3, 200_000)];
    const { packs } = splitByPack(todo);
    const ranges = coalesceRanges(packs[0]?.members ?? [], PACK_COALESCE_RULE);
    expect(ranges.map((r) => [r.start, r.end])).toEqual([
      [0, 200 + 64 * 1024],
      [200_000, 200_100],
    ]);
  });
});
