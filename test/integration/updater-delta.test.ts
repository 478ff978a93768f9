/**
 * Pull only what changed (docs/UPDATER.md §1, steps 5-6), observed from the server side: the
 * hostile server counts every byte and request, so "only the changed bytes moved" is measured.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpdateResult } from '#core/updater-api.js';
import { sha256Hex, startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import { bytesOf, tempDirs, updateOnce } from '#test/updater-harness.js';

const dirs = tempDirs();
let server: HostileServer;
let dir: string;

type Files = { name: string; content: Uint8Array }[];

const update = (): Promise<UpdateResult> => updateOnce(server, dir);

async function installed(): Promise<Record<string, string>> {
  return filesOf(await snapshotTree(join(dir, 'current')));
}

function digests(files: Files): Record<string, string> {
  return Object.fromEntries(files.map((f) => [f.name, sha256Hex(f.content)]));
}

beforeEach(async () => {
  server = await startHostileServer();
  dir = await dirs.make('qa-delta-');
});

afterEach(async () => {
  await server.close();
  await dirs.cleanup();
});

describe('only what changed moves', () => {
  const v1: Files = [
    { name: 'a.bin', content: bytesOf(10_000, 1) },
    { name: 'b.bin', content: bytesOf(20_000, 2) },
    { name: 'c/d.bin', content: bytesOf(30_000, 3) },
  ];

  it('fetches nothing when an artifact is only renamed', async () => {
    await server.publish({ version: '1.0.0', files: v1 });
    await update();
    server.resetCounters();
    const v2 = v1.map((f) => (f.name === 'b.bin' ? { ...f, name: 'renamed/b.bin' } : f));
    await server.publish({ version: '1.1.0', files: v2 });
    const result = await update();
    expect(result.bytesDownloaded).toBe(0);
    expect(server.artifactRequests).toEqual([]);
    expect(await installed()).toEqual(digests(v2));
  });

  it('removes an artifact dropped from the manifest', async () => {
    await server.publish({ version: '1.0.0', files: v1 });
    await update();
    const v2 = v1.filter((f) => f.name !== 'c/d.bin');
    await server.publish({ version: '1.1.0', files: v2 });
    const result = await update();
    expect(result.plan?.remove).toEqual(['c/d.bin']);
    expect(await installed()).toEqual(digests(v2));
  });

  it('fetches content shared by two names once', async () => {
    const same = bytesOf(40_000, 9);
    const files = [
      { name: 'x.bin', content: same },
      { name: 'y.bin', content: same },
    ];
    await server.publish({ version: '1.0.0', files });
    const result = await update();
    expect(result.bytesDownloaded).toBe(40_000);
    expect(server.artifactRequests.length).toBe(1);
    expect(await installed()).toEqual(digests(files));
  });

  it('installs an empty artifact', async () => {
    const files = [...v1, { name: 'empty.txt', content: new Uint8Array() }];
    await server.publish({ version: '1.0.0', files });
    expect((await update()).outcome).toBe('applied');
    expect(await installed()).toEqual(digests(files));
  });

  it('moves exactly the changed bytes when 1 of 20 artifacts changes', async () => {
    const many: Files = Array.from({ length: 20 }, (_, i) => ({
      name: `p/${String(i).padStart(2, '0')}.bin`,
      content: bytesOf(16_384, 100 + i),
    }));
    await server.publish({ version: '1.0.0', files: many });
    await update();
    server.resetCounters();
    const next = many.map((f, i) => (i === 7 ? { ...f, content: bytesOf(16_384, 7777) } : f));
    await server.publish({ version: '2.0.0', files: next });
    const result = await update();
    expect(result.plan?.bytesToFetch).toBe(16_384);
    expect(result.plan?.bytesToReuse).toBe(19 * 16_384);
    expect(server.bytesServed()).toBe(16_384);
    expect(server.artifactRequests.map((r) => r.name)).toEqual(['p/07.bin']);
    expect(await installed()).toEqual(digests(next));
  });
});
