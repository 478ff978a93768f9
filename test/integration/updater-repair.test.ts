/**
 * `update` repairs an installed set that is up to date on paper but damaged on disk
 * (docs/UPDATER.md §3, Repair): files under DIR/current missing, resized or written since install are restored,
 * from their blobs when those are intact, else re-fetched, and committed atomically.
 */
import { appendFile, chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpdaterApi } from '#core/updater-api.js';
import { startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { snapshotObject, snapshotTree } from '#test/tree-snapshot.js';
import { bytesOf, openUpdater, tempDirs } from '#test/updater-harness.js';

const V1 = [
  { name: 'app.bin', content: bytesOf(48 * 1024, 1) },
  { name: 'lib/core.js', content: new TextEncoder().encode('export const v = 1;\n') },
  { name: 'readme.txt', content: new TextEncoder().encode('version one\n') },
];

const dirs = tempDirs();
let server: HostileServer;
let dir: string;
const updaters: UpdaterApi[] = [];

async function updater(): Promise<UpdaterApi> {
  await Promise.all(updaters.splice(0).map((x) => x.close()));
  const u = await openUpdater(server, dir);
  updaters.push(u);
  return u;
}

/** Installs 1.0.0 and returns the snapshot of DIR/current. */
async function installV1(): Promise<Record<string, string>> {
  await server.publish({ version: '1.0.0', files: V1 });
  expect((await (await updater()).update()).outcome).toBe('applied');
  server.resetCounters();
  return current();
}

async function current(): Promise<Record<string, string>> {
  return snapshotObject(await snapshotTree(join(dir, 'current')));
}

beforeEach(async () => {
  server = await startHostileServer();
  dir = await dirs.make('qa-repair-');
});

afterEach(async () => {
  await Promise.all(updaters.splice(0).map((u) => u.close()));
  await server.close();
  await dirs.cleanup();
});

describe('update repairs a damaged installed set', () => {
  it('leaves an intact set alone: up-to-date, nothing downloaded', async () => {
    const before = await installV1();
    const result = await (await updater()).update();
    expect(result.outcome).toBe('up-to-date');
    expect(result.repaired).toBeUndefined();
    expect(await current()).toEqual(before);
  });

  it('restores a deleted file from its blob without downloading', async () => {
    const before = await installV1();
    await rm(join(dir, 'current', 'readme.txt'));
    const u = await updater();
    const result = await u.update();
    expect(result).toMatchObject({
      outcome: 'applied',
      version: '1.0.0',
      repaired: ['readme.txt'],
    });
    expect(result.bytesDownloaded).toBe(0);
    expect(server.bytesServed()).toBe(0);
    expect(await current()).toEqual(before);
    expect((await u.verify()).ok).toBe(true);
  });

  it('re-fetches a file written in place (its blob is no longer intact)', async () => {
    const before = await installV1();
    // Installed files are read-only hard links to blobs: a determined writer changes both.
    const path = join(dir, 'current', 'app.bin');
    await chmod(path, 0o644);
    await appendFile(path, 'tampered');
    const result = await (await updater()).update();
    expect(result.repaired).toEqual(['app.bin']);
    expect(result.bytesDownloaded).toBe(48 * 1024);
    expect(server.bytesServed('app.bin')).toBe(48 * 1024);
    expect(await current()).toEqual(before);
  });

  it('restores a file replaced by one of the same size (the sentinel mtime changed)', async () => {
    const before = await installV1();
    const path = join(dir, 'current', 'lib', 'core.js');
    await rm(path);
    await writeFile(path, 'export const v = 9;\n');
    const result = await (await updater()).update();
    expect(result.repaired).toEqual(['lib/core.js']);
    expect(server.bytesServed()).toBe(0);
    expect(await current()).toEqual(before);
  });

  it('keeps the rollback target and the rollback floor through a repair', async () => {
    await installV1();
    const V2 = V1.map((f) => (f.name === 'app.bin' ? { ...f, content: bytesOf(64 * 1024, 2) } : f));
    await server.publish({ version: '2.0.0', files: V2 });
    expect((await (await updater()).update()).outcome).toBe('applied');
    const after = await current();
    await rm(join(dir, 'current', 'readme.txt'));
    const u = await updater();
    expect((await u.update()).repaired).toEqual(['readme.txt']);
    expect(await current()).toEqual(after);
    const status = await u.status();
    expect(status).toMatchObject({
      installedVersion: '2.0.0',
      highestAcceptedVersion: '2.0.0',
      canRollBack: true,
    });
    expect((await u.rollback()).version).toBe('1.0.0');
    expect(await current()).not.toEqual(after);
  });

  it('a second update after a repair is up-to-date again', async () => {
    await installV1();
    await rm(join(dir, 'current', 'readme.txt'));
    expect((await (await updater()).update()).repaired).toEqual(['readme.txt']);
    const again = await (await updater()).update();
    expect(again.outcome).toBe('up-to-date');
    expect(again.repaired).toBeUndefined();
  });
});
