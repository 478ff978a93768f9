/**
 * A file system without hard links (link(2) refused, e.g. some network or FAT mounts): the set
 * is staged from copies of the verified blobs, each given the sentinel mtime, so the cheap
 * check of the next run finds it intact (docs/UPDATER.md §3, Durability; §8).
 */
import type * as NodeFs from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNodeUpdater } from '#node/create-updater.js';
import { BLOB_MTIME_S } from '#node/blobs/intact-blob.js';
import { startHostileServer } from '#test/hostile-server.js';
import { tempDirs } from '#test/updater-harness.js';

const refused: string[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof NodeFs>();
  return {
    ...fs,
    linkSync: (from: string, to: string): void => {
      if (to.includes('.staging')) {
        refused.push(to);
        throw Object.assign(new Error(`EPERM: operation not permitted, link '${from}'`), {
          code: 'EPERM',
        });
      }
      fs.linkSync(from, to);
    },
  };
});

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dirs = tempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await dirs.cleanup();
});

describe('staging where hard links are refused', () => {
  it('installs copies with the sentinel mtime, and the next run finds them intact', async () => {
    const server = await startHostileServer();
    cleanups.push(() => server.close());
    const dir = await dirs.make('updater-no-links-');
    const files = Array.from({ length: 300 }, (_, i) => ({
      name: `d${i % 3}/f${String(i).padStart(3, '0')}.txt`,
      content: enc(`file ${i}\n`),
    }));
    await server.publish({ version: '1.0.0', files });
    const open = () =>
      createNodeUpdater({
        baseUrl: server.baseUrl,
        machineKey: server.machineKey,
        pubkeys: [server.pubkeyHex],
        dir,
      });
    const updater = await open();
    expect(await updater.update()).toMatchObject({ outcome: 'applied' });
    await updater.close();
    // Every file of the set (more than one batch of links) fell back to a copy: the pull's
    // first link into the staging tree was refused, then it linked no more during the pull and
    // the commit tried each file once (docs/UPDATER.md §3, Staging during the pull).
    expect(refused).toHaveLength(files.length + 1);
    expect(new Set(refused).size).toBe(files.length);
    const file = join(dir, 'current', 'd2', 'f299.txt');
    expect(await readFile(file, 'utf8')).toBe('file 299\n');
    const info = await lstat(file);
    expect(info.nlink).toBe(1);
    expect(info.mtimeMs).toBe(BLOB_MTIME_S * 1000);
    const second = await open();
    cleanups.push(() => second.close());
    const again = await second.update();
    expect(again).toMatchObject({ outcome: 'up-to-date' });
    expect(again).not.toHaveProperty('repaired');
  });
});
