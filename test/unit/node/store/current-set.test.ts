import {
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_STATE, type InstalledSet, type UpdaterState } from '#core/state.js';
import {
  chooseSwap,
  defaultSwap,
  pointerBytes,
  resolveCurrentSet,
} from '#node/store/current-set.js';
import { FileStore, type FileStoreOptions } from '#node/store/file-store.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const A = text('alpha');
const B = text('bravo');

function setOf(version: string, content: Uint8Array): InstalledSet {
  return {
    setId: sha256Hex(text(version)),
    version,
    artifacts: [{ name: 'x', size: content.length, sha256: sha256Hex(content) }],
  };
}

function storeWith(dir: string, options: FileStoreOptions): Promise<FileStore> {
  return FileStore.open(dir, options);
}

/** Commits `set` (its one blob put first: a commit's GC drops blobs no set references). */
async function install(store: FileStore, set: InstalledSet, state: UpdaterState) {
  const content = set.version === '1.0.0' ? A : B;
  if (!(await store.hasBlob(sha256Hex(content), content.length))) {
    const partial = await store.openPartial(sha256Hex(content), content.length);
    await partial.write(content);
    await partial.complete();
  }
  const next = { ...state, installed: set, previous: state.installed };
  await store.commitSet({ ...set, envelope: text('e') }, next);
  return next;
}

const present = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

describe('choosing a swap strategy', () => {
  it('defaults to symlink on POSIX and pointer on Windows', () => {
    expect(defaultSwap('linux')).toBe('symlink');
    expect(defaultSwap('darwin')).toBe('symlink');
    expect(defaultSwap('win32')).toBe('pointer');
    expect(chooseSwap(undefined, 'win32')).toBe('pointer');
    expect(chooseSwap('pointer', 'linux')).toBe('pointer');
  });

  it('refuses the symlink swap on Windows (CONFIG_INVALID): it cannot be atomic there', () => {
    expect(() => chooseSwap('symlink', 'win32')).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });
});

describe('the pointer strategy', () => {
  it('names the set in DIR/current.json (replaced atomically) and leaves no DIR/current', async () => {
    const dir = await dirs.make();
    const store = await storeWith(dir, { swap: 'pointer', platform: 'linux' });
    const v1 = setOf('1.0.0', A);
    const s1 = await install(store, v1, EMPTY_STATE);
    expect(await readFile(join(dir, 'current.json'))).toEqual(Buffer.from(pointerBytes(v1.setId)));
    expect(await present(join(dir, 'current'))).toBe(false);
    expect(await resolveCurrentSet(dir)).toBe(join(dir, '.updater', 'sets', v1.setId));
    await install(store, setOf('2.0.0', B), s1);
    const live = await resolveCurrentSet(dir);
    expect(await readFile(join(live ?? '', 'x'), 'utf8')).toBe('bravo');
    // The store reads the live set through the pointer too (repair check, verify).
    expect(await store.checkInstalled(setOf('2.0.0', B).artifacts)).toEqual([]);
    expect((await store.scanInstalled()).map((f) => f.name)).toEqual(['x']);
    // No temporary file is left beside the pointer.
    expect((await readdir(dir)).sort()).toEqual(['.updater', 'current.json']);
  });

  it('refreshes a junction DIR/current after the pointer on Windows (convenience only)', async () => {
    // On Linux a "junction" is created as a symlink with an absolute target: the same code path.
    const dir = await dirs.make();
    const store = await storeWith(dir, { swap: 'pointer', platform: 'win32' });
    const v1 = setOf('1.0.0', A);
    const s1 = await install(store, v1, EMPTY_STATE);
    expect(await readlink(join(dir, 'current'))).toBe(join(dir, '.updater', 'sets', v1.setId));
    const v2 = setOf('2.0.0', B);
    await install(store, v2, s1);
    expect(await readlink(join(dir, 'current'))).toBe(join(dir, '.updater', 'sets', v2.setId));
    expect(await readFile(join(dir, 'current', 'x'), 'utf8')).toBe('bravo');
  });

  it('never decides by the junction: the pointer wins, a stale junction is refreshed on open', async () => {
    const dir = await dirs.make();
    const store = await storeWith(dir, { swap: 'pointer', platform: 'win32' });
    const v1 = setOf('1.0.0', A);
    const v2 = setOf('2.0.0', B);
    const s1 = await install(store, v1, EMPTY_STATE);
    await install(store, v2, s1);
    // A crash between the pointer's rename and the junction's refresh: the junction lags.
    await unlink(join(dir, 'current'));
    await symlink(join(dir, '.updater', 'sets', v1.setId), join(dir, 'current'));
    expect(await resolveCurrentSet(dir)).toBe(join(dir, '.updater', 'sets', v2.setId));
    await FileStore.open(dir, { swap: 'pointer', platform: 'win32' });
    expect(await readlink(join(dir, 'current'))).toBe(join(dir, '.updater', 'sets', v2.setId));
  });

  it('leaves a DIR/current that is a real folder alone (not ours; the pointer decides)', async () => {
    const dir = await dirs.make();
    await mkdir(join(dir, 'current'));
    await writeFile(join(dir, 'current', 'mine.txt'), 'user data');
    const store = await storeWith(dir, { swap: 'pointer', platform: 'win32' });
    const v1 = setOf('1.0.0', A);
    await install(store, v1, EMPTY_STATE);
    expect(await readFile(join(dir, 'current', 'mine.txt'), 'utf8')).toBe('user data');
    expect(await resolveCurrentSet(dir)).toBe(join(dir, '.updater', 'sets', v1.setId));
  });
});

describe('resolveCurrentSet', () => {
  it('is null before the first install, and follows the symlink strategy too', async () => {
    const dir = await dirs.make();
    expect(await resolveCurrentSet(dir)).toBeNull();
    expect(await resolveCurrentSet(join(dir, 'nothing-here'))).toBeNull();
    const store = await storeWith(dir, { swap: 'symlink', platform: 'linux' });
    const v1 = setOf('1.0.0', A);
    await install(store, v1, EMPTY_STATE);
    expect(await resolveCurrentSet(dir)).toBe(join(dir, '.updater', 'sets', v1.setId));
  });

  it('refuses a damaged pointer or one naming a set not on disk (STATE_CORRUPT)', async () => {
    const dir = await dirs.make();
    await writeFile(join(dir, 'current.json'), '{"set": "../../etc"}');
    await expect(resolveCurrentSet(dir)).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
    await expect(FileStore.open(dir, { swap: 'symlink' })).rejects.toMatchObject({
      code: 'STATE_CORRUPT',
    });
    await writeFile(join(dir, 'current.json'), pointerBytes('c'.repeat(64)));
    await expect(resolveCurrentSet(dir)).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
  });
});

describe('switching strategies on an existing DIR', () => {
  it('migrates symlink -> pointer -> symlink on open, naming the same set throughout', async () => {
    const dir = await dirs.make();
    const store = await storeWith(dir, { swap: 'symlink', platform: 'linux' });
    const v1 = setOf('1.0.0', A);
    await install(store, v1, EMPTY_STATE);
    const expected = join(dir, '.updater', 'sets', v1.setId);
    await FileStore.open(dir, { swap: 'pointer', platform: 'linux' });
    expect(await present(join(dir, 'current'))).toBe(false);
    expect(await resolveCurrentSet(dir)).toBe(expected);
    await FileStore.open(dir, { swap: 'symlink', platform: 'linux' });
    expect(await present(join(dir, 'current.json'))).toBe(false);
    expect(await readlink(join(dir, 'current'))).toBe(join('.updater', 'sets', v1.setId));
    expect(await resolveCurrentSet(dir)).toBe(expected);
  });

  it('lets the pointer win while both forms exist (a migration cut short by a crash)', async () => {
    const dir = await dirs.make();
    const store = await storeWith(dir, { swap: 'symlink', platform: 'linux' });
    const v1 = setOf('1.0.0', A);
    const v2 = setOf('2.0.0', B);
    const s1 = await install(store, v1, EMPTY_STATE);
    await install(store, v2, s1);
    await writeFile(join(dir, 'current.json'), pointerBytes(v2.setId));
    expect(await resolveCurrentSet(dir)).toBe(join(dir, '.updater', 'sets', v2.setId));
  });
});
