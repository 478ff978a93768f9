import { lstat, readFile, readdir, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InstallStep } from '#core/install/install-steps.js';
import { silentLogger } from '#core/ports.js';
import { EMPTY_STATE, type InstalledSet, type UpdaterState } from '#core/state.js';
import { FileStore } from '#node/store/file-store.js';
import { stateDirPaths } from '#node/fs/state-dir.js';
import { sha256Hex, text } from '#test/fakes.js';
import { A, B, putBlob } from '#test/file-store-kit.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

function setOf(version: string, files: Record<string, Uint8Array>): InstalledSet {
  const artifacts = Object.entries(files).map(([name, c]) => ({
    name,
    size: c.length,
    sha256: sha256Hex(c),
  }));
  return { setId: sha256Hex(text(version)), version, artifacts };
}

async function install(
  store: FileStore,
  set: InstalledSet,
  state: UpdaterState,
): Promise<UpdaterState> {
  const next = { ...state, installed: set, previous: state.installed };
  await store.commitSet({ ...set, envelope: text(`envelope ${set.version}`) }, next);
  return next;
}

class Crash extends Error {}

describe('FileStore', () => {
  it('starts empty', async () => {
    const store = await FileStore.open(await dirs.make());
    expect(await store.loadState()).toEqual(EMPTY_STATE);
    expect(await store.scanInstalled()).toEqual([]);
  });

  it('loadStateAndBytes hands back the state with the exact bytes it parsed', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    expect(await store.loadStateAndBytes()).toEqual({ state: EMPTY_STATE, bytes: undefined });
    const state = { ...EMPTY_STATE, lastCheckAtMs: 1234 };
    await store.saveState(state);
    const loaded = await store.loadStateAndBytes();
    expect(loaded.state).toEqual(state);
    expect(Buffer.from(loaded.bytes ?? [])).toEqual(await readFile(stateDirPaths(dir).state));
  });

  it('commits a set: DIR/current holds exactly its files, state and envelope are written', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await putBlob(store, A);
    await putBlob(store, B);
    const set = setOf('1.0.0', { 'a.txt': A, 'sub/b.txt': B });
    await install(store, set, EMPTY_STATE);
    expect(await readFile(join(dir, 'current', 'a.txt'), 'utf8')).toBe('alpha');
    expect(await readFile(join(dir, 'current', 'sub', 'b.txt'), 'utf8')).toBe('bravo bravo');
    expect((await store.loadState()).installed?.version).toBe('1.0.0');
    expect(new TextDecoder().decode(await store.loadEnvelope(set.setId))).toBe('envelope 1.0.0');
    const scanned = await store.scanInstalled();
    expect(scanned.map((f) => f.name).sort()).toEqual(['a.txt', 'sub/b.txt']);
    expect(scanned.find((f) => f.name === 'a.txt')?.sha256).toBe(sha256Hex(A));
    expect((await lstat(join(dir, 'current'))).isSymbolicLink()).toBe(true);
  });

  it('keeps the previous set and collects blobs no set references', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    const C = text('charlie');
    let state = EMPTY_STATE;
    for (const [version, c] of [
      ['1.0.0', A],
      ['1.1.0', B],
      ['1.2.0', C],
    ] as const) {
      await putBlob(store, c); // pulled right before its commit, as the update loop does
      state = await install(store, setOf(version, { x: c }), state);
    }
    const blobs = await readdir(join(dir, '.updater', 'blobs'));
    expect(blobs.sort()).toEqual([sha256Hex(B), sha256Hex(C)].sort());
    expect(await readdir(join(dir, '.updater', 'sets'))).toHaveLength(2);
    expect(state.previous?.version).toBe('1.1.0');
  });

  it('switchSet returns DIR/current to a kept set', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await putBlob(store, A);
    const v1 = setOf('1.0.0', { x: A });
    const installed = await install(store, v1, EMPTY_STATE);
    await putBlob(store, B);
    const state = await install(store, setOf('1.1.0', { x: B }), installed);
    await store.switchSet(v1.setId, { ...state, installed: v1, previous: null });
    expect(await readFile(join(dir, 'current', 'x'), 'utf8')).toBe('alpha');
    expect((await store.loadState()).installed?.version).toBe('1.0.0');
  });

  it('refuses to switch to a set that is not on disk (STATE_CORRUPT)', async () => {
    const store = await FileStore.open(await dirs.make());
    await expect(store.switchSet('f'.repeat(64), EMPTY_STATE)).rejects.toMatchObject({
      code: 'STATE_CORRUPT',
    });
  });

  for (const step of [
    'set-staged',
    'journal-written',
    'current-swapped',
    'state-written',
  ] as InstallStep[]) {
    it(`after a crash at ${step}, reopening leaves the old set or the complete new one`, async () => {
      const dir = await dirs.make();
      const first = await FileStore.open(dir);
      await putBlob(first, A);
      const state = await install(first, setOf('1.0.0', { x: A }), EMPTY_STATE);
      await putBlob(first, B);
      const crashing = await FileStore.open(dir, {
        onStep: (s) => {
          if (s === step) throw new Crash(s);
        },
      });
      await expect(install(crashing, setOf('1.1.0', { x: B }), state)).rejects.toThrow();
      const reopened = await FileStore.open(dir);
      const x = await readFile(join(dir, 'current', 'x'), 'utf8');
      const version = (await reopened.loadState()).installed?.version;
      expect([x, version]).toEqual(
        step === 'set-staged' ? ['alpha', '1.0.0'] : ['bravo bravo', '1.1.0'],
      );
      await expect(lstat(join(dir, '.updater', 'journal.json'))).rejects.toThrow();
    });
  }

  it('appends hash-chained audit entries and refuses to extend a broken chain', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    const rec = { version: '1.0.0', payloadSha256: 'a'.repeat(64), keyid: 'b'.repeat(64), atMs: 1 };
    await store.appendAudit(rec);
    await store.appendAudit({ ...rec, version: '1.1.0' });
    const path = join(dir, '.updater', 'audit.log');
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(2);
    // The first entry removed: a complete line whose chain no longer starts at genesis. (Without
    // its newline it would be a torn append, which appendAuditFile drops instead.)
    await writeFile(path, `${lines[1] ?? ''}\n`);
    await expect(store.appendAudit({ ...rec, version: '1.2.0' })).rejects.toMatchObject({
      code: 'STATE_CORRUPT',
    });
  });

  it('refuses a damaged state file (STATE_CORRUPT)', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await writeFile(join(dir, '.updater', 'state.json'), '{broken');
    await expect(store.loadState()).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
  });

  it('refuses to replace a DIR/current that is not its symlink (IO)', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await putBlob(store, A);
    await writeFile(join(dir, 'current'), 'a user file');
    await expect(install(store, setOf('1.0.0', { x: A }), EMPTY_STATE)).rejects.toMatchObject({
      code: 'IO',
    });
    expect(await readFile(join(dir, 'current'), 'utf8')).toBe('a user file');
  });

  it('points DIR/current at a relative target inside the state directory', async () => {
    const dir = await dirs.make();
    const store = await FileStore.open(dir);
    await putBlob(store, A);
    const set = setOf('1.0.0', { x: A });
    await install(store, set, EMPTY_STATE);
    expect(await readlink(join(dir, 'current'))).toBe(join('.updater', 'sets', set.setId));
  });
});

describe('small blobs promoted behind the downloads', () => {
  it('hasBlob waits for a promotion still in flight; settleBlobs reports blobs-settled once', async () => {
    const dir = await dirs.make();
    const steps: string[] = [];
    // A kernel whose syncfs hides write-back errors: one fsync per blob (fs-sync.ts).
    const store = await FileStore.open(dir, {
      onStep: (s) => steps.push(s),
      kernelRelease: '5.4.0',
    });
    const partial = await store.openPartial(sha256Hex(A), A.length);
    await partial.write(A);
    await partial.complete();
    expect(await store.hasBlob(sha256Hex(A), A.length)).toBe(true);
    expect(steps).toEqual(['blob-promoted']);
    await store.settleBlobs();
    await store.settleBlobs();
    expect(steps).toEqual(['blob-promoted', 'blobs-settled']);
  });

  it('promotes a complete sealed partial a kill left behind, read-only, without a fetch', async () => {
    const dir = await dirs.make();
    await FileStore.open(dir);
    const part = join(dir, '.updater', 'partial', `${sha256Hex(B)}.part`);
    await writeFile(part, B, { mode: 0o444 });
    const store = await FileStore.open(dir);
    const partial = await store.openPartial(sha256Hex(B), B.length);
    expect(partial.offset).toBe(B.length);
    await partial.complete();
    await store.settleBlobs();
    expect(await store.hasBlob(sha256Hex(B), B.length)).toBe(true);
    expect(await readdir(join(dir, '.updater', 'partial'))).toEqual([]);
  });
});

describe('small blobs made durable by one syncfs per batch (Linux >= 5.8)', () => {
  /** A store on a 6.8 kernel whose `sync -f` is `answer` (recorded in `calls`). */
  async function batchStore(answer: (file: string) => Promise<void>) {
    const dir = await dirs.make();
    const steps: string[] = [];
    const calls: string[] = [];
    const warnings: string[] = [];
    const store = await FileStore.open(dir, {
      onStep: (s) => steps.push(s),
      kernelRelease: '6.8.0-45-generic',
      syncRunner: (file, args) => {
        calls.push(`${file} ${args.join(' ')}`);
        return answer(file);
      },
      logger: { ...silentLogger, warn: (message) => warnings.push(message) },
    });
    return { dir, steps, calls, warnings, store };
  }
  const blobPath = (dir: string, c: Uint8Array): string =>
    join(dir, '.updater', 'blobs', sha256Hex(c));
  const partPath = (dir: string, c: Uint8Array): string =>
    join(dir, '.updater', 'partial', `${sha256Hex(c)}.part`);

  it('syncs the blob directory once, then renames every blob of the batch', async () => {
    const { dir, steps, calls, store } = await batchStore(() => Promise.resolve());
    for (const c of [A, B]) {
      const partial = await store.openPartial(sha256Hex(c), c.length);
      await partial.write(c);
      await partial.complete();
    }
    // Sealed, not yet named in blobs/: the batch is still open.
    expect(await readdir(join(dir, '.updater', 'blobs'))).not.toContain(sha256Hex(A));
    expect((await lstat(partPath(dir, A))).mode & 0o777).toBe(0o444);
    // hasBlob closes the open batch and waits for it: never a half-promoted blob.
    expect(await store.hasBlob(sha256Hex(B), B.length)).toBe(true);
    expect(calls).toEqual([`/usr/bin/sync -f ${join(dir, '.updater', 'blobs')}`]);
    await store.settleBlobs();
    expect(steps).toEqual([
      'blobs-batch-synced',
      'blob-promoted',
      'blob-promoted',
      'blobs-settled',
    ]);
    expect(await readdir(join(dir, '.updater', 'partial'))).toEqual([]);
  });

  // A `sync` that cannot be started, or one that reports an error (another file's write-back
  // on that file system, or a `sync` without -f): our blobs' own fsyncs decide from then on (a
  // failing one fails the batch closed: seal-batches.test.ts).
  it.each([
    ['no sync can be started (ENOENT)', 'ENOENT', ['/usr/bin/sync', '/bin/sync'], 0],
    ['the sync reports an error (exit 1)', 1, ['/usr/bin/sync'], 1],
  ] as const)('fsyncs each blob instead, for good, when %s', async (_, code, tried, warned) => {
    const failing = Object.assign(new Error('sync -f failed'), { code });
    const { dir, steps, calls, warnings, store } = await batchStore(() => Promise.reject(failing));
    for (const c of [A, B]) {
      const partial = await store.openPartial(sha256Hex(c), c.length);
      await partial.write(c);
      await partial.complete();
      await store.settleBlobs();
    }
    // Tried for the first batch only; a sync that started and failed is logged, once.
    expect(calls.map((c) => c.split(' ')[0])).toEqual(tried);
    expect(warnings).toHaveLength(warned);
    expect(steps).toEqual([
      'blobs-batch-synced',
      'blob-promoted',
      'blobs-settled',
      'blob-promoted',
      'blobs-settled',
    ]);
    expect((await lstat(blobPath(dir, A))).isFile()).toBe(true);
    expect((await lstat(blobPath(dir, B))).isFile()).toBe(true);
  });
});
