/**
 * The facts that let a held blob be reused without a re-hash (src/node/blobs/blob-facts.ts,
 * docs/SECURITY.md §8), and the no-link helpers under them (src/node/fs/safe-fs.ts).
 */
import { constants } from 'node:fs';
import { chmod, link, mkdir, open, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_STATE } from '#core/state.js';
import {
  blobFactsHold,
  keepBlobFacts,
  promoteSealed,
  sealBlob,
  trustBlob,
} from '#node/blobs/blob-facts.js';
import { FileStore } from '#node/store/file-store.js';
import { openPartialBlob } from '#node/blobs/partial-open.js';
import { ensureRealDir, openNoFollow, prepareStateDir } from '#node/fs/safe-fs.js';
import { stateDirPaths } from '#node/fs/state-dir.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const A = text('alpha bytes');
const SHA = sha256Hex(A);

/** A state-like layout: meta/blobs, meta/partial (verified/ is their sibling). */
async function held(): Promise<{ blobDir: string; partialDir: string; blob: string }> {
  const meta = await dirs.make();
  const blobDir = join(meta, 'blobs');
  const partialDir = join(meta, 'partial');
  await mkdir(blobDir);
  await mkdir(partialDir);
  const partial = await openPartialBlob({ blobDir, partialDir }, SHA, A.length);
  await partial.write(A);
  await partial.complete();
  return { blobDir, partialDir, blob: join(blobDir, SHA) };
}

describe('blob facts', () => {
  it('a promoted blob has its facts recorded: reused without a re-hash', async () => {
    const { blobDir } = await held();
    expect(await blobFactsHold(blobDir, SHA)).toBe(true);
    expect(await trustBlob(blobDir, SHA, A.length)).toBe(true);
  });

  it('a hard link moves the ctime: the facts no longer hold, a re-hash keeps the blob and records them anew', async () => {
    const { blobDir, blob } = await held();
    await link(blob, join(blobDir, '..', 'elsewhere'));
    expect(await blobFactsHold(blobDir, SHA)).toBe(false);
    expect(await trustBlob(blobDir, SHA, A.length)).toBe(true); // re-hashed: same bytes
    expect(await blobFactsHold(blobDir, SHA)).toBe(true);
  });

  it('keepBlobFacts re-records the blobs that held before the updater’s own link step, not the others', async () => {
    const { blobDir, blob } = await held();
    await keepBlobFacts(blobDir, [SHA], () => link(blob, join(blobDir, '..', 'set-file')));
    expect(await blobFactsHold(blobDir, SHA)).toBe(true);
    // Changed before the step: not blessed by it.
    await chmod(blob, 0o644);
    await keepBlobFacts(blobDir, [SHA], () => link(blob, join(blobDir, '..', 'set-file-2')));
    expect(await blobFactsHold(blobDir, SHA)).toBe(false);
  });

  it('a blob of the wrong size is removed, not trusted', async () => {
    const { blobDir, blob } = await held();
    expect(await trustBlob(blobDir, SHA, A.length + 1)).toBe(false);
    await expect(stat(blob)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a link at the blob’s name is STATE_UNSAFE', async () => {
    const { blobDir, blob } = await held();
    await rm(blob);
    await symlink(join(blobDir, '..', 'outside'), blob);
    await expect(trustBlob(blobDir, SHA, A.length)).rejects.toMatchObject({
      code: 'STATE_UNSAFE',
      message: expect.stringContaining(blob) as unknown,
    });
  });

  it('promotion refuses a file swapped in under the partial’s name after it was sealed', async () => {
    const { blobDir, partialDir } = await held();
    const from = join(partialDir, 'swapped.part');
    await writeFile(from, A);
    const handle = await open(from, 'r+');
    try {
      await sealBlob(handle);
      await rm(from, { force: true });
      await writeFile(from, A); // same bytes, another inode (ours is held open)
      const other = sha256Hex(text('other'));
      await expect(promoteSealed(from, blobDir, other, handle)).rejects.toMatchObject({
        code: 'STATE_UNSAFE',
      });
      await expect(stat(join(blobDir, other))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await handle.close();
    }
  });

  it('after a commit and its GC every kept blob’s facts still hold (no re-hash on the next update)', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    const B = text('bravo');
    for (const c of [A, B]) {
      const partial = await store.openPartial(sha256Hex(c), c.length);
      await partial.write(c);
      await partial.complete();
    }
    const artifacts = [
      { name: 'a', size: A.length, sha256: SHA },
      { name: 'b', size: B.length, sha256: sha256Hex(B) },
    ];
    const set = { setId: sha256Hex(text('v1')), version: '1.0.0', artifacts };
    await store.commitSet({ ...set, envelope: text('env') }, { ...EMPTY_STATE, installed: set });
    for (const a of artifacts) {
      expect(await blobFactsHold(store.paths.blobs, a.sha256)).toBe(true);
    }
  });
});

describe('safe-fs', () => {
  it('ensureRealDir creates a missing directory and refuses a link to one', async () => {
    const root = await dirs.make();
    await ensureRealDir(join(root, 'made'));
    expect((await stat(join(root, 'made'))).isDirectory()).toBe(true);
    await symlink(join(root, 'made'), join(root, 'link'));
    await expect(ensureRealDir(join(root, 'link'))).rejects.toMatchObject({
      code: 'STATE_UNSAFE',
    });
  });

  it('openNoFollow refuses a link and opens a regular file', async () => {
    const root = await dirs.make();
    await writeFile(join(root, 'file'), 'x');
    await symlink(join(root, 'file'), join(root, 'link'));
    await expect(openNoFollow(join(root, 'link'), constants.O_RDONLY)).rejects.toMatchObject({
      code: 'STATE_UNSAFE',
    });
    const handle = await openNoFollow(join(root, 'file'), constants.O_RDONLY);
    await handle.close();
  });

  it('prepareStateDir creates the layout in an empty DIR, and refuses a link among the sets', async () => {
    const paths = stateDirPaths(join(await dirs.make(), 'DIR'));
    await prepareStateDir(paths);
    for (const d of [paths.blobs, paths.partial, paths.sets, paths.manifests]) {
      expect((await stat(d)).isDirectory()).toBe(true);
    }
    await writeFile(join(paths.meta, 'elsewhere'), 'x');
    await symlink(join(paths.meta, 'elsewhere'), join(paths.sets, 'planted'));
    await expect(prepareStateDir(paths)).rejects.toMatchObject({ code: 'STATE_UNSAFE' });
    expect(await readFile(join(paths.meta, 'elsewhere'), 'utf8')).toBe('x');
  });
});
