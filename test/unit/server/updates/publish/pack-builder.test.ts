import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ManifestArtifact } from '#protocol';
import {
  addPacks,
  planPacks,
  type PackPorts,
  type PackRules,
} from '#server/updates/publish/pack-builder.js';

const rules: PackRules = { memberMaxBytes: 100, targetBytes: 250, minLiveShare: 0.5 };
const shaOf = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Artifacts of the given sizes, named a000, a001, ... with content from their name. */
function release(
  sizes: readonly number[],
  salt = '',
): { list: ManifestArtifact[]; bytes: Map<string, Uint8Array> } {
  const bytes = new Map<string, Uint8Array>();
  const list = sizes.map((size, i) => {
    const name = `a${String(i).padStart(3, '0')}`;
    const content = new Uint8Array(size).fill((i * 7 + salt.length) % 251);
    content.set(new TextEncoder().encode(`${name}${salt}`).subarray(0, size));
    const sha256 = shaOf(content);
    bytes.set(sha256, content);
    return { name, size, sha256, url: `u/${sha256}` };
  });
  return { list, bytes };
}

function ports(bytes: Map<string, Uint8Array>): PackPorts & { stored: Uint8Array[] } {
  const stored: Uint8Array[] = [];
  return {
    stored,
    read: (sha) => Promise.resolve(bytes.get(sha) as Uint8Array),
    put: (b) => {
      stored.push(b);
      bytes.set(shaOf(b), b);
      return Promise.resolve({ sha256: shaOf(b), size: b.length });
    },
    urlOf: (sha) => `api/updates/artifacts/${sha}`,
  };
}

describe('planPacks (docs/PROTOCOL.md §2.8)', () => {
  it('packs small artifacts in name order into packs of about the target size', () => {
    const { list } = release([100, 100, 100, 50, 50]);
    const plan = planPacks(list, undefined, rules);
    expect(plan.kept.size).toBe(0);
    expect(plan.fresh.map((p) => p.map((m) => m.size))).toEqual([
      [100, 100],
      [100, 50, 50],
    ]);
  });

  it('leaves out empty artifacts, artifacts over the member limit and a lone member', () => {
    const { list } = release([0, 101, 5, 200]);
    expect(planPacks(list, undefined, rules).fresh).toEqual([]);
  });

  it('packs one content once, however many names it has', () => {
    const { list } = release([10, 20]);
    const twice = [...list, { ...(list[0] as ManifestArtifact), name: 'b' }];
    expect(planPacks(twice, undefined, rules).fresh[0]?.length).toBe(2);
  });
});

describe('addPacks', () => {
  it('names each member by pack, offset and size; the pack holds exactly its bytes there', async () => {
    const { list, bytes } = release([30, 40, 50]);
    const p = ports(bytes);
    const packed = await addPacks(list, undefined, p, rules);
    expect(p.stored).toHaveLength(1);
    for (const a of packed) {
      const pack = bytes.get(a.pack?.sha256 ?? '') as Uint8Array;
      const offset = a.pack?.offset ?? -1;
      expect(shaOf(pack.subarray(offset, offset + a.size))).toBe(a.sha256);
      expect(a.pack?.url).toBe(`api/updates/artifacts/${a.pack?.sha256}`);
      expect(a.pack?.size).toBe(120);
    }
  });

  it('keeps the packs of unchanged members and packs only the changed ones together', async () => {
    const one = release([50, 50, 50, 50, 50, 50]);
    const p = ports(one.bytes);
    const first = await addPacks(one.list, undefined, p, rules);
    const changed = release([50, 50], 'v2');
    // Release 2: a001 and a004 changed.
    const second = first.map(({ pack: _pack, ...a }, i) =>
      i === 1
        ? { ...(changed.list[0] as ManifestArtifact), name: a.name }
        : i === 4
          ? { ...(changed.list[1] as ManifestArtifact), name: a.name }
          : a,
    );
    for (const [k, v] of changed.bytes) one.bytes.set(k, v);
    const packed = await addPacks(second, first, p, rules);
    // Release 1: a000-a004 in one pack, a005 alone (no pack); release 2: one new pack.
    expect(p.stored).toHaveLength(2);
    const newPack = packed[1]?.pack?.sha256;
    expect(packed[4]?.pack?.sha256).toBe(newPack);
    expect(packed[0]?.pack).toEqual(first[0]?.pack);
    expect(packed[3]?.pack).toEqual(first[3]?.pack);
    expect(packed[5]?.pack?.sha256).toBe(newPack);
  });

  it('packs afresh when the kept packs would be mostly dead bytes', async () => {
    const one = release([50, 50, 50, 50]);
    const p = ports(one.bytes);
    const first = await addPacks(one.list, undefined, p, rules);
    const changed = release([50, 50, 50], 'v2');
    for (const [k, v] of changed.bytes) one.bytes.set(k, v);
    const second = [
      first[0] as ManifestArtifact,
      ...changed.list.map((a, i) => ({ ...a, name: `b${i}` })),
    ];
    const packed = await addPacks(
      second.map(({ pack: _p, ...a }) => a),
      first,
      p,
      rules,
    );
    // 50 live bytes of a 200-byte pack: under half, so a001.. and the new ones share new packs.
    expect(packed[0]?.pack?.sha256).not.toBe(first[0]?.pack?.sha256);
  });
});
