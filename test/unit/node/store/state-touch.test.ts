import { readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_STATE, type InstalledSet, type UpdaterState } from '#core/state.js';
import { FileStore } from '#node/store/file-store.js';
import { stateDirPaths } from '#node/fs/state-dir.js';
import { onlyTouched, parseTouch, TOUCH_FILE, withTouchRecord } from '#node/store/state-touch.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const installed: InstalledSet = {
  setId: sha256Hex(text('set')),
  version: '1.0.0',
  artifacts: [{ name: 'a.txt', size: 5, sha256: sha256Hex(text('alpha')) }],
};
const BASE: UpdaterState = {
  ...EMPTY_STATE,
  highestAcceptedVersion: '1.0.0',
  acceptedDigests: { '1.0.0': installed.setId },
  installed,
  lastCheckAtMs: 1000,
  lastSuccessAtMs: 1000,
};

async function opened(): Promise<{ dir: string; state: string; touch: string }> {
  const dir = await dirs.make();
  const paths = stateDirPaths(dir);
  return { dir, state: paths.state, touch: join(paths.meta, TOUCH_FILE) };
}

async function storeIn(dir: string) {
  return withTouchRecord(await FileStore.open(dir), stateDirPaths(dir));
}

describe('state-touch: the last-run record', () => {
  it('a save that only moves the last-run fields writes the record, not the state file', async () => {
    const { dir, state, touch } = await opened();
    const store = await storeIn(dir);
    await store.saveState(BASE);
    const before = await readFile(state);
    const loaded = await store.loadState();
    await store.saveState({ ...loaded, lastCheckAtMs: 2000, lastSuccessAtMs: 2000 });
    expect(await readFile(state)).toEqual(before);
    const record = JSON.parse(await readFile(touch, 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ schema: 1, base: sha256Hex(before), lastCheckAtMs: 2000 });
    // A fresh process sees the merged state.
    const again = await (await storeIn(dir)).loadState();
    expect(again).toEqual({ ...BASE, lastCheckAtMs: 2000, lastSuccessAtMs: 2000 });
  });

  it('records a last error the same way, and the next success clears it', async () => {
    const { dir } = await opened();
    const store = await storeIn(dir);
    await store.saveState(BASE);
    const error = { code: 'STALLED' as const, message: 'slow' };
    await store.saveState({ ...(await store.loadState()), lastCheckAtMs: 3000, lastError: error });
    expect((await (await storeIn(dir)).loadState()).lastError).toEqual(error);
    const s2 = await storeIn(dir);
    await s2.saveState({ ...(await s2.loadState()), lastSuccessAtMs: 4000, lastError: null });
    expect(await (await storeIn(dir)).loadState()).toMatchObject({
      lastCheckAtMs: 3000,
      lastSuccessAtMs: 4000,
      lastError: null,
    });
  });

  it('a change to anything the trust rules keep replaces the state file itself', async () => {
    const { dir, state } = await opened();
    const store = await storeIn(dir);
    await store.saveState(BASE);
    const loaded = await store.loadState();
    await store.saveState({ ...loaded, lastCheckAtMs: 2000 });
    await store.saveState({
      ...(await store.loadState()),
      highestAcceptedVersion: '1.1.0',
      lastCheckAtMs: 5000,
    });
    const onDisk = JSON.parse(await readFile(state, 'utf8')) as UpdaterState;
    expect(onDisk).toMatchObject({ highestAcceptedVersion: '1.1.0', lastCheckAtMs: 5000 });
    // The old record no longer names the state file: it is ignored from now on.
    expect(await (await storeIn(dir)).loadState()).toMatchObject({
      highestAcceptedVersion: '1.1.0',
      lastCheckAtMs: 5000,
    });
  });

  it('a record that names other state file bytes is ignored (a later write, a crash)', async () => {
    const { dir, state, touch } = await opened();
    const store = await storeIn(dir);
    await store.saveState(BASE);
    await store.saveState({ ...(await store.loadState()), lastCheckAtMs: 2000 });
    // The state file replaced behind the record's back (as a replayed commit journal does).
    await writeFile(state, `${JSON.stringify({ ...BASE, lastCheckAtMs: 7000 })}\n`);
    expect(JSON.parse(await readFile(touch, 'utf8'))).toMatchObject({ lastCheckAtMs: 2000 });
    expect((await (await storeIn(dir)).loadState()).lastCheckAtMs).toBe(7000);
  });

  it('names the digest of the bytes its load parsed: the state file is read once per run', async () => {
    for (const withRecord of [false, true]) {
      const { dir, state, touch } = await opened();
      await (await storeIn(dir)).saveState(BASE);
      if (withRecord) {
        const first = await storeIn(dir);
        await first.saveState({ ...(await first.loadState()), lastCheckAtMs: 1500 });
      }
      const parsed = await readFile(state);
      const store = await storeIn(dir);
      const loaded = await store.loadState();
      // Bytes no run writes (only the lock holder writes, through this store): a second read
      // would hash these instead of the ones parsed.
      await writeFile(state, `${JSON.stringify({ ...BASE, lastCheckAtMs: 7000 })}\n`);
      await store.saveState({ ...loaded, lastCheckAtMs: 2000 });
      const record = JSON.parse(await readFile(touch, 'utf8')) as Record<string, unknown>;
      expect(record).toMatchObject({ base: sha256Hex(parsed), lastCheckAtMs: 2000 });
    }
  });

  it('hashes the state file written by its own full save, read back from disk', async () => {
    const { dir, state, touch } = await opened();
    const store = await storeIn(dir);
    const loaded = await store.loadState();
    await store.saveState({ ...loaded, ...BASE });
    await store.saveState({ ...BASE, lastCheckAtMs: 3000 });
    const record = JSON.parse(await readFile(touch, 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ base: sha256Hex(await readFile(state)), lastCheckAtMs: 3000 });
  });

  it('a damaged record is ignored and replaced by the next save', async () => {
    const { dir, touch } = await opened();
    const store = await storeIn(dir);
    await store.saveState(BASE);
    await writeFile(touch, '{"schema": 1, "base": ');
    const s2 = await storeIn(dir);
    expect(await s2.loadState()).toEqual(BASE);
    await s2.saveState({ ...BASE, lastCheckAtMs: 2500 });
    expect((await (await storeIn(dir)).loadState()).lastCheckAtMs).toBe(2500);
  });

  it('a record planted as a symbolic link is refused (STATE_UNSAFE)', async () => {
    const { dir, touch } = await opened();
    const store = await storeIn(dir);
    await store.saveState(BASE);
    await writeFile(join(dir, 'elsewhere.json'), '{}');
    await symlink(join(dir, 'elsewhere.json'), touch);
    await expect((await storeIn(dir)).loadState()).rejects.toMatchObject({ code: 'STATE_UNSAFE' });
  });

  it('a save with no state loaded first writes the whole state', async () => {
    const { dir, state } = await opened();
    const store = await storeIn(dir);
    await store.saveState(BASE);
    const s2 = await storeIn(dir);
    await s2.saveState({ ...BASE, lastCheckAtMs: 9000 });
    expect((await stat(state)).size).toBeGreaterThan(0);
    expect((JSON.parse(await readFile(state, 'utf8')) as UpdaterState).lastCheckAtMs).toBe(9000);
  });
});

describe('onlyTouched', () => {
  it('is true when only the last-run fields differ', () => {
    expect(onlyTouched(BASE, { ...BASE, lastCheckAtMs: 1, lastSuccessAtMs: 2 })).toBe(true);
  });

  it('compares small fields by value (a rebuilt digest map is no change)', () => {
    const next = { ...BASE, acceptedDigests: { ...BASE.acceptedDigests } };
    expect(onlyTouched(BASE, next)).toBe(true);
    const other = { ...BASE, acceptedDigests: { '1.0.0': sha256Hex(text('other')) } };
    expect(onlyTouched(BASE, other)).toBe(false);
  });

  it('takes a copy of the installed set as a change (identity only)', () => {
    const next = { ...BASE, installed: { ...installed } };
    expect(onlyTouched(BASE, next)).toBe(false);
  });

  it('sees the rollback floor, the key set and the freshness floor', () => {
    expect(onlyTouched(BASE, { ...BASE, highestAcceptedVersion: '2.0.0' })).toBe(false);
    expect(
      onlyTouched(BASE, { ...BASE, freshness: { sequence: 1, releaseSha256: installed.setId } }),
    ).toBe(false);
    expect(onlyTouched(BASE, { ...BASE, health: { ...BASE.health, probation: null } })).toBe(true);
  });
});

describe('parseTouch', () => {
  it('refuses what is not a record', () => {
    expect(parseTouch(text('[]'))).toBeUndefined();
    expect(parseTouch(text('{"schema":2,"base":"x"}'))).toBeUndefined();
    const base = sha256Hex(text('x'));
    const ok = { schema: 1, base, lastCheckAtMs: 1, lastSuccessAtMs: null, lastError: null };
    expect(parseTouch(text(JSON.stringify(ok)))).toEqual(ok);
    expect(parseTouch(text(JSON.stringify({ ...ok, lastCheckAtMs: 1.5 })))).toBeUndefined();
    expect(parseTouch(text(JSON.stringify({ ...ok, lastError: { code: 1 } })))).toBeUndefined();
  });
});
