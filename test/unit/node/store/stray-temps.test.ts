/**
 * The temporary files of atomic writes that a kill left (src/node/store/stray-temps.ts,
 * docs/UPDATER.md §3, Temporary files): ours are dropped when the store opens, another
 * process's temporary lock record only once it is stale; anything else, a user's file, stays.
 */
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempPathFor, tempTargetOf } from '#shared/atomic-file.js';
import { ensureStateDirs, stateDirPaths } from '#node/fs/state-dir.js';
import { FileStore } from '#node/store/file-store.js';
import { dropStrayTemps, LOCK_TEMP_STALE_MS } from '#node/store/stray-temps.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const HEX = 'a1b2c3d4e5f6';
const SET_ID = 'c'.repeat(64);

/** DIR with a temporary file of every kind, ours or not; answers DIR. */
async function litteredDir(): Promise<string> {
  const root = await dirs.make();
  const paths = stateDirPaths(root);
  await ensureStateDirs(paths);
  await mkdir(join(paths.meta, 'tuf'));
  const files = [
    `.current.json.${HEX}.tmp`,
    `.notes.txt.${HEX}.tmp`,
    'user.tmp',
    `.updater/.state.json.${HEX}.tmp`,
    `.updater/.journal.json.${HEX}.tmp`,
    `.updater/.state-touch.json.${HEX}.tmp`,
    `.updater/.lock.${HEX}.tmp`,
    `.updater/.state.json.NOTHEX123456.tmp`,
    `.updater/manifests/.${SET_ID}.json.${HEX}.tmp`,
    `.updater/manifests/${SET_ID}.json`,
    `.updater/tuf/.root.json.${HEX}.tmp`,
    `.updater/tuf/.retired-keys.${HEX}.tmp`,
  ];
  for (const f of files) await writeFile(join(root, f), 'x');
  return root;
}

async function names(root: string, sub: string): Promise<string[]> {
  return (await readdir(join(root, sub))).sort();
}

describe('tempTargetOf', () => {
  it("names the target of tempPathFor's files, and nothing else", () => {
    const temp = tempPathFor('/some/dir/state.json');
    expect(tempTargetOf(temp.slice(temp.lastIndexOf('/') + 1))).toBe('state.json');
    expect(tempTargetOf(`.a.b.json.${HEX}.tmp`)).toBe('a.b.json');
    expect(tempTargetOf(`state.json.${HEX}.tmp`)).toBeUndefined();
    expect(tempTargetOf(`.state.json.${HEX}0.tmp`)).toBeUndefined();
    expect(tempTargetOf('answer.tmp')).toBeUndefined();
  });
});

describe('dropStrayTemps', () => {
  it('drops our temporary files and keeps the rest', async () => {
    const root = await litteredDir();
    expect(await dropStrayTemps(stateDirPaths(root))).toBe(7);
    expect(await names(root, '.')).toEqual(['.notes.txt.a1b2c3d4e5f6.tmp', '.updater', 'user.tmp']);
    expect((await names(root, '.updater')).filter((n) => n.endsWith('.tmp'))).toEqual([
      `.lock.${HEX}.tmp`,
      '.state.json.NOTHEX123456.tmp',
    ]);
    expect(await names(root, '.updater/manifests')).toEqual([`${SET_ID}.json`]);
    expect(await names(root, '.updater/tuf')).toEqual([]);
  });

  it("drops another process's temporary lock record only once it is stale", async () => {
    const root = await dirs.make();
    const paths = stateDirPaths(root);
    await ensureStateDirs(paths);
    const records = [`.lock.${HEX}.tmp`, `.lock.breaking-0123456789abcdef.${HEX}.tmp`];
    for (const name of records) await writeFile(join(paths.meta, name), '{}');
    const tmps = async (): Promise<string[]> =>
      (await names(root, '.updater')).filter((n) => n.endsWith('.tmp'));
    expect(await dropStrayTemps(paths, Date.now() + LOCK_TEMP_STALE_MS - 60_000)).toBe(0);
    expect(await tmps()).toEqual(records.sort());
    expect(await dropStrayTemps(paths, Date.now() + LOCK_TEMP_STALE_MS + 1000)).toBe(2);
    expect(await tmps()).toEqual([]);
  });

  it('leaves a directory made under such a name, and drops the rest', async () => {
    const root = await dirs.make();
    const paths = stateDirPaths(root);
    await ensureStateDirs(paths);
    await mkdir(join(paths.meta, `.state.json.${HEX}.tmp`));
    await writeFile(join(paths.meta, `.journal.json.${HEX}.tmp`), 'x');
    expect(await dropStrayTemps(paths)).toBe(1);
    expect((await names(root, '.updater')).filter((n) => n.endsWith('.tmp'))).toEqual([
      `.state.json.${HEX}.tmp`,
    ]);
  });

  it('never lists a tuf/ that is a link: the files it points at stay', async () => {
    const root = await dirs.make();
    const paths = stateDirPaths(root);
    await ensureStateDirs(paths);
    const elsewhere = await dirs.make();
    const victim = `.victim.${HEX}.tmp`;
    await writeFile(join(elsewhere, victim), 'x');
    await symlink(elsewhere, join(paths.meta, 'tuf'));
    expect(await dropStrayTemps(paths)).toBe(0);
    expect(await readdir(elsewhere)).toEqual([victim]);
  });

  it('finds nothing to do in a DIR without TUF metadata', async () => {
    const root = await dirs.make();
    await ensureStateDirs(stateDirPaths(root));
    expect(await dropStrayTemps(stateDirPaths(root))).toBe(0);
  });

  it('does not run when the store opens without the lock, nor does recovery', async () => {
    const root = await litteredDir();
    await mkdir(join(root, '.updater', 'sets', `${'d'.repeat(64)}.staging`));
    const tmps = async (): Promise<string[]> =>
      (await names(root, '.updater')).filter((n) => n.endsWith('.tmp'));
    const before = await tmps();
    await FileStore.open(root, { locked: false });
    expect(await tmps()).toEqual(before);
    expect(await names(root, '.updater/sets')).toEqual([`${'d'.repeat(64)}.staging`]);
    expect(await names(root, '.updater/tuf')).toHaveLength(2);
  });

  it('runs when the store opens', async () => {
    const root = await litteredDir();
    const store = await FileStore.open(root);
    expect(store).toBeDefined();
    expect((await names(root, '.updater/manifests')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(await names(root, '.updater/tuf')).toEqual([]);
  });
});
