/**
 * The order on disk of a commit whose durable steps run side by side (docs/UPDATER.md §3, The
 * commit's durable steps side by side): every sync the journal depends on has returned before
 * the journal is named (renamed from its synced temporary file), the journal is durable before
 * the swap, the swap before the state file is named. The fsyncs are made slow one at a time, so
 * a step that stopped waiting for one would run before it returned and fail here.
 */
import { readdir, readFile } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EMPTY_STATE, parseState, type InstalledSet } from '#core/state.js';
import { FileStore } from '#node/store/file-store.js';
import { sha256Hex, text } from '#test/fakes.js';
import { A, B, putBlob } from '#test/file-store-kit.js';
import { tempDirs } from '#test/temp-dir.js';

/** What the file calls did, in order: "synced <path>", "open <path>", "rename <from> <to>". */
const disk = vi.hoisted(() => ({ log: [] as string[], slow: '', slowList: '' }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  const open = async (...args: Parameters<typeof real.open>): ReturnType<typeof real.open> => {
    const path = String(args[0]);
    disk.log.push(`open ${path}`);
    const handle = await real.open(...args);
    const sync = async (): Promise<void> => {
      const slow = path === disk.slow || path.startsWith(`${disk.slow}.`);
      if (slow) await new Promise((resolve) => setTimeout(resolve, 60));
      await handle.sync();
      disk.log.push(`synced ${path}`);
    };
    return new Proxy(handle, {
      get(target, key) {
        if (key === 'sync') return sync;
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function'
          ? (value as (...a: unknown[]) => unknown).bind(target)
          : value;
      },
    });
  };
  const rename = async (from: string, to: string): Promise<void> => {
    await real.rename(from, to);
    disk.log.push(`rename ${from} ${to}`);
  };
  const readdir = async (...args: Parameters<typeof real.readdir>): Promise<unknown> => {
    const path = String(args[0]);
    if (path === disk.slowList) await new Promise((resolve) => setTimeout(resolve, 60));
    const entries = await real.readdir(...args);
    disk.log.push(`listed ${path}`);
    return entries;
  };
  const readFile = async (...args: Parameters<typeof real.readFile>): Promise<unknown> => {
    const [path] = args;
    disk.log.push(`read ${typeof path === 'string' ? path : 'a handle'}`);
    return real.readFile(...args);
  };
  return { ...real, open, rename, readdir, readFile };
});

const dirs = tempDirs();
beforeEach(() => {
  disk.log = [];
  disk.slow = '';
  disk.slowList = '';
});
afterEach(() => dirs.cleanup());

function setOf(version: string, files: Record<string, Uint8Array>): InstalledSet {
  const artifacts = Object.entries(files).map(([name, c]) => ({
    name,
    size: c.length,
    sha256: sha256Hex(c),
  }));
  return { setId: sha256Hex(text(version)), version, artifacts };
}

/** The index of the first entry of the log `match` accepts; fails when there is none. */
function at(match: (entry: string) => boolean, what: string): number {
  const index = disk.log.findIndex(match);
  expect(index, `${what} in ${disk.log.join('\n')}`).toBeGreaterThanOrEqual(0);
  return index;
}

/** A store holding A and B (promoted, blobs/ not synced yet) and the paths of its DIR. */
async function storeWithBlobs(): Promise<{ dir: string; meta: string; store: FileStore }> {
  const dir = await dirs.make();
  const store = await FileStore.open(dir);
  await putBlob(store, A);
  await putBlob(store, B);
  return { dir, meta: join(dir, '.updater'), store };
}

/** The index of the rename that gives `target` its name (made visible there). */
function named(target: string, what: string): number {
  return at((e) => e.startsWith('rename ') && e.endsWith(` ${target}`), what);
}

/** The index of the last "synced" of the temporary file renamed at `rename`. */
function tempSynced(rename: number): number {
  const temp = (disk.log[rename] ?? '').split(' ')[1] ?? '';
  return disk.log.lastIndexOf(`synced ${temp}`, rename);
}

/**
 * Checks the log of one commit of `set`, the order of §3: the journal gets its name only once
 * every sync before it returned, the swap only once the journal's name is durable, the state
 * file only once the swap is; each of the two written and synced before it is named.
 */
function expectOrder(dir: string, meta: string, set: InstalledSet, early: boolean): void {
  const journal = named(join(meta, 'journal.json'), 'the journal named');
  const before = (path: string): void => {
    expect(at((e) => e === `synced ${path}`, `synced ${path}`)).toBeLessThan(journal);
  };
  before(join(meta, 'blobs'));
  before(join(meta, 'sets', `${set.setId}.staging`));
  before(join(meta, 'manifests'));
  // The staged tree is renamed into place and that rename made durable, before the journal.
  const staged = named(join(meta, 'sets', set.setId), 'the tree renamed');
  expect(staged).toBeLessThan(journal);
  expect(disk.log.lastIndexOf(`synced ${join(meta, 'sets')}`)).toBeGreaterThan(staged);
  before(join(meta, 'sets'));
  const kept = join(meta, 'manifests', `${set.setId}.json`);
  const manifest = named(kept, 'the manifest renamed');
  expect(manifest).toBeLessThan(journal);
  // Written once: during the pull (before the commit's first sync) or by the commit.
  expect(disk.log.filter((e) => e.endsWith(` ${kept}`))).toHaveLength(1);
  const blobsSync = at((e) => e.startsWith(`open ${join(meta, 'blobs')}`), 'blobs/ opened');
  if (early) expect(manifest).toBeLessThan(blobsSync);
  expect(tempSynced(journal)).toBeGreaterThanOrEqual(0);
  const swap = named(join(dir, 'current'), 'the swap');
  expect(disk.log.indexOf(`synced ${meta}`, journal)).toBeLessThan(swap);
  const state = named(join(meta, 'state.json'), 'the state named');
  expect(tempSynced(state)).toBeGreaterThanOrEqual(0);
  expect(disk.log.indexOf(`synced ${dir}`, swap)).toBeLessThan(state);
}

describe('FileStore commit: durable steps side by side, the order of §3 kept', () => {
  for (const slow of ['blobs', 'staging', 'sets', 'manifests', 'journal', 'state'] as const) {
    it(`names the journal only once every sync before it returned (slow: ${slow})`, async () => {
      const { dir, meta, store } = await storeWithBlobs();
      const set = setOf('1.0.0', { 'a/x': A, y: B });
      const paths = {
        blobs: join(meta, 'blobs'),
        staging: join(meta, 'sets', `${set.setId}.staging`),
        sets: join(meta, 'sets'),
        manifests: join(meta, 'manifests'),
        // Their temporary files, `.journal.json.<random>.tmp` and `.state.json.<random>.tmp`.
        journal: join(meta, '.journal.json'),
        state: join(meta, '.state.json'),
      };
      disk.slow = paths[slow];
      disk.log = [];
      await store.commitSet(
        { ...set, envelope: text('envelope 1.0.0') },
        {
          ...EMPTY_STATE,
          installed: set,
        },
      );
      expectOrder(dir, meta, set, false);
    });
  }

  it('writes the signed manifest while the set is pulled, and not again at the commit', async () => {
    const { dir, meta, store } = await storeWithBlobs();
    const set = setOf('1.0.0', { 'a/x': A, y: B });
    const envelope = text('envelope 1.0.0');
    disk.log = [];
    await store.expectSet({ ...set, envelope });
    // Durable before any commit: written, renamed, its directory synced.
    expect(await readdir(join(meta, 'manifests'))).toEqual([`${set.setId}.json`]);
    expect(disk.log).toContain(`synced ${join(meta, 'manifests')}`);
    disk.slow = join(meta, 'blobs');
    await store.commitSet({ ...set, envelope }, { ...EMPTY_STATE, installed: set });
    expectOrder(dir, meta, set, true);
  });

  it('writes the manifest at the commit when the envelope differs from the one kept', async () => {
    const { meta, store } = await storeWithBlobs();
    const set = setOf('1.0.0', { y: B });
    await store.expectSet({ ...set, envelope: text('signed once') });
    disk.log = [];
    await store.commitSet(
      { ...set, envelope: text('signed again') },
      { ...EMPTY_STATE, installed: set },
    );
    expect(disk.log).toContainEqual(
      expect.stringMatching(new RegExp(`rename .* ${join(meta, 'manifests', set.setId)}\\.json$`)),
    );
  });
});

describe('a signed manifest no commit names (a pull that failed or was killed)', () => {
  it('is not read as installed and goes with the next commit of another set', async () => {
    const { dir, meta, store } = await storeWithBlobs();
    const first = setOf('1.0.0', { x: A, y: B });
    await store.expectSet({ ...first, envelope: text('envelope 1.0.0') });
    // The pull never commits it; the next run (a new process) opens the store and commits 1.1.0.
    const reopened = await FileStore.open(dir);
    expect(await reopened.loadState()).toEqual(EMPTY_STATE);
    const next = setOf('1.1.0', { y: B });
    await reopened.commitSet(
      { ...next, envelope: text('envelope 1.1.0') },
      { ...EMPTY_STATE, installed: next },
    );
    expect(await readdir(join(meta, 'manifests'))).toEqual([`${next.setId}.json`]);
    expect(new TextDecoder().decode(await reopened.loadEnvelope(next.setId))).toBe(
      'envelope 1.1.0',
    );
    expect(await reopened.loadEnvelope(first.setId)).toBeUndefined();
  });
});

describe('FileStore commit: the GC and the blob facts', () => {
  const factsSaved = (meta: string): number =>
    at((e) => e.startsWith('rename ') && e.endsWith(join(meta, 'verified', 'facts.json')), 'facts');

  it('removes no set at a first install: saves the facts beside the GC, lists side by side', async () => {
    const { meta, store } = await storeWithBlobs();
    const set = setOf('1.0.0', { x: A, y: B });
    disk.slowList = join(meta, 'blobs');
    disk.log = [];
    await store.commitSet({ ...set, envelope: text('e') }, { ...EMPTY_STATE, installed: set });
    const blobsListed = at((e) => e === `listed ${join(meta, 'blobs')}`, 'blobs/ listed');
    expect(factsSaved(meta)).toBeLessThan(blobsListed);
    expect(at((e) => e === `listed ${join(meta, 'partial')}`, 'partial/')).toBeLessThan(
      blobsListed,
    );
    expect(at((e) => e === `listed ${join(meta, 'manifests')}`, 'm/')).toBeLessThan(blobsListed);
  });

  it('removes a set: saves the facts only after the GC changed its links', async () => {
    const { meta, store } = await storeWithBlobs();
    const first = setOf('1.0.0', { x: A, y: B });
    const second = setOf('1.1.0', { x: B });
    const third = setOf('1.2.0', { x: A, y: B });
    let state = { ...EMPTY_STATE, installed: first };
    await store.commitSet({ ...first, envelope: text('1') }, state);
    state = { ...state, installed: second, previous: first };
    await store.commitSet({ ...second, envelope: text('2') }, state);
    disk.slowList = join(meta, 'blobs');
    disk.log = [];
    // 1.0.0's directory is neither installed nor previous now: removed by this GC.
    await store.commitSet(
      { ...third, envelope: text('3') },
      { ...state, installed: third, previous: second },
    );
    expect(factsSaved(meta)).toBeGreaterThan(at((e) => e === `listed ${join(meta, 'blobs')}`, 'b'));
    expect(await readdir(join(meta, 'sets'))).toHaveLength(2);
  });
});

describe('FileStore: the state after its own commit', () => {
  it('is handed back as written, without reading and parsing state.json again', async () => {
    const { meta, store } = await storeWithBlobs();
    const set = setOf('1.0.0', { x: A, y: B });
    const next = { ...EMPTY_STATE, installed: set, lastSuccessAtMs: 5 };
    await store.commitSet({ ...set, envelope: text('e') }, next);
    disk.log = [];
    const loaded = await store.loadStateAndBytes();
    const statePath = join(meta, 'state.json');
    expect(disk.log).not.toContain(`read ${statePath}`);
    // Exactly what a read would give: the file's bytes, and their parse.
    const onDisk = await readFile(statePath);
    expect(Buffer.from(loaded.bytes ?? new Uint8Array()).equals(onDisk)).toBe(true);
    expect(loaded.state).toEqual(parseState(onDisk));
  });

  it('is read from the file again after any other write of the state', async () => {
    const { meta, store } = await storeWithBlobs();
    const set = setOf('1.0.0', { x: A });
    const next = { ...EMPTY_STATE, installed: set };
    await store.commitSet({ ...set, envelope: text('e') }, next);
    await store.saveState({ ...next, lastCheckAtMs: 7 });
    disk.log = [];
    expect((await store.loadState()).lastCheckAtMs).toBe(7);
    expect(disk.log).toContain(`read ${join(meta, 'state.json')}`);
  });
});
