/**
 * Step 1 of the commit (src/node/store/set-staging.ts, docs/UPDATER.md §3): the new tree is staged
 * from hard links to blobs whose recorded facts hold, and a blob that no longer matches its
 * facts is re-hashed, refused or dropped exactly as trustBlob decides.
 */
import { lstat, mkdir, readFile, readdir, stat, symlink, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InstalledArtifact } from '#core/state.js';
import { blobFactsHold, recordBlobFacts } from '#node/blobs/blob-facts.js';
import { openPartialBlob } from '#node/blobs/partial-open.js';
import { stageSet } from '#node/store/set-staging.js';
import { StagingTree } from '#node/store/staging-tree.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const A = text('alpha bytes');
const B = text('bravo bytes!');
const notLive = { live: (): Promise<string | null> => Promise.resolve(null) };

/** meta/{blobs,partial,sets} with A and B promoted (their facts recorded) as blobs. */
async function store(): Promise<{ blobs: string; sets: string; artifacts: InstalledArtifact[] }> {
  const meta = await dirs.make();
  const blobs = join(meta, 'blobs');
  const partialDir = join(meta, 'partial');
  const sets = join(meta, 'sets');
  for (const d of [blobs, partialDir, sets]) await mkdir(d);
  const artifacts: InstalledArtifact[] = [];
  for (const [name, bytes] of [
    ['bin/a.txt', A],
    ['b.txt', B],
    ['deep/er/copy-of-a.txt', A],
  ] as const) {
    const sha256 = sha256Hex(bytes);
    if (!artifacts.some((x) => x.sha256 === sha256)) {
      const partial = await openPartialBlob({ blobDir: blobs, partialDir }, sha256, bytes.length);
      await partial.write(bytes);
      await partial.complete();
    }
    artifacts.push({ name, size: bytes.length, sha256 });
  }
  return { blobs, sets, artifacts };
}

describe('stageSet', () => {
  it('links every name to its blob under sets/<dir> and leaves the facts holding', async () => {
    const { blobs, sets, artifacts } = await store();
    await stageSet({ sets, blobs }, notLive, 'set1', artifacts);
    expect(await readdir(sets)).toEqual(['set1']);
    for (const a of artifacts) {
      const staged = join(sets, 'set1', ...a.name.split('/'));
      expect((await stat(staged)).ino).toBe((await stat(join(blobs, a.sha256))).ino);
      // Linked twice or three times since its facts were recorded: recorded anew each time.
      expect(await blobFactsHold(blobs, a.sha256)).toBe(true);
    }
    expect((await stat(join(blobs, sha256Hex(A)))).nlink).toBe(3);
  });

  it('re-hashes a blob whose facts no longer hold and stages it when it still matches', async () => {
    const { blobs, sets, artifacts } = await store();
    const blob = join(blobs, sha256Hex(B));
    await chmod(blob, 0o444); // moves the ctime: the recorded facts no longer hold
    expect(await blobFactsHold(blobs, sha256Hex(B))).toBe(false);
    await stageSet({ sets, blobs }, notLive, 'set1', artifacts);
    expect(await readFile(join(sets, 'set1', 'b.txt'))).toEqual(Buffer.from(B));
    expect(await blobFactsHold(blobs, sha256Hex(B))).toBe(true);
  });

  it('refuses a blob rewritten since it was verified, drops it, and renames no set into place', async () => {
    const { blobs, sets, artifacts } = await store();
    const blob = join(blobs, sha256Hex(B));
    await chmod(blob, 0o644);
    await writeFile(blob, 'bravo bytes?'); // same size, other bytes
    await expect(stageSet({ sets, blobs }, notLive, 'set1', artifacts)).rejects.toMatchObject({
      code: 'IO',
    });
    await expect(lstat(blob)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(sets)).filter((d) => !d.includes('.staging'))).toEqual([]);
  });

  it('refuses a blob replaced by a symbolic link (STATE_UNSAFE)', async () => {
    const { blobs, sets, artifacts } = await store();
    const blob = join(blobs, sha256Hex(B));
    const elsewhere = join(blobs, '..', 'elsewhere');
    await writeFile(elsewhere, B);
    await chmod(blob, 0o644);
    const { rm } = await import('node:fs/promises');
    await rm(blob);
    await symlink(elsewhere, blob);
    await expect(stageSet({ sets, blobs }, notLive, 'set1', artifacts)).rejects.toMatchObject({
      code: 'STATE_UNSAFE',
    });
  });

  it('keeps the live set directory as it is, and rebuilds a kept one that is not live', async () => {
    const { blobs, sets, artifacts } = await store();
    await mkdir(join(sets, 'set1'));
    await writeFile(join(sets, 'set1', 'stray'), 'x');
    const live = { live: (): Promise<string | null> => Promise.resolve('set1') };
    await stageSet({ sets, blobs }, live, 'set1', artifacts);
    expect(await readdir(join(sets, 'set1'))).toEqual(['stray']);
    await stageSet({ sets, blobs }, notLive, 'set1', artifacts);
    expect((await readdir(join(sets, 'set1'))).sort()).toEqual(['b.txt', 'bin', 'deep']);
    expect(await readdir(sets)).toEqual(['set1']);
  });

  it('finishes the tree the pull staged into, linking only the blobs it does not hold', async () => {
    const { blobs, sets, artifacts } = await store();
    const early = await StagingTree.create(sets, 'set1', artifacts);
    early.arrived(sha256Hex(A), join(blobs, sha256Hex(A)));
    const linkedEarly = (await stat(join(early.root, 'bin', 'a.txt'))).ino;
    await stageSet({ sets, blobs }, notLive, 'set1', artifacts, early);
    expect(await readdir(sets)).toEqual(['set1']);
    expect((await stat(join(sets, 'set1', 'bin', 'a.txt'))).ino).toBe(linkedEarly);
    expect(await readFile(join(sets, 'set1', 'b.txt'))).toEqual(Buffer.from(B));
    expect((await stat(join(blobs, sha256Hex(A)))).nlink).toBe(3);
  });

  it('checks at the commit a blob the pull linked: one rewritten since is refused, no set renamed', async () => {
    const { blobs, sets, artifacts } = await store();
    const early = await StagingTree.create(sets, 'set1', artifacts);
    const blob = join(blobs, sha256Hex(B));
    early.arrived(sha256Hex(B), blob);
    await recordBlobFacts(blobs, sha256Hex(B)); // as keepIfArrived does after the links
    await chmod(blob, 0o644);
    await writeFile(blob, 'bravo bytes?'); // same size, other bytes, through the shared inode
    await expect(
      stageSet({ sets, blobs }, notLive, 'set1', artifacts, early),
    ).rejects.toMatchObject({ code: 'IO' });
    await expect(lstat(blob)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(sets)).filter((d) => !d.includes('.staging'))).toEqual([]);
    await expect(lstat(join(early.root, 'b.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('builds afresh instead of a spoiled tree or one staged for another directory', async () => {
    const { blobs, sets, artifacts } = await store();
    const other = await StagingTree.create(sets, 'set0', artifacts);
    await stageSet({ sets, blobs }, notLive, 'set1', artifacts, other);
    expect(await readdir(sets)).toEqual(['set1']); // set0.staging removed, not left behind
    const spoiled = await StagingTree.create(sets, 'set2', artifacts);
    await mkdir(join(spoiled.root, 'b.txt')); // a name the tree cannot undo
    spoiled.arrived(sha256Hex(B), join(blobs, sha256Hex(B)));
    expect(spoiled.usableFor('set2')).toBe(false);
    await stageSet({ sets, blobs }, notLive, 'set2', artifacts, spoiled);
    expect((await lstat(join(sets, 'set2', 'b.txt'))).isFile()).toBe(true);
  });
});
