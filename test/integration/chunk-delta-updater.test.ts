/**
 * Chunk deltas through the updater itself (docs/UPDATER.md §9): the companion server publishes
 * with `artifact_base_url` on nginx, a first install fetches whole files, and the next release
 * is assembled from the chunks the blob store holds plus verified ranges. `check` and the
 * `update-available` event tell per artifact what is fetched and what is reused, the CLI's
 * `check --json` prints it, and an index that cannot be had falls back to the whole file.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArtifactPlan, PlanSummary, UpdateEvent } from '#core/events.js';
import { silentLogger } from '#core/ports.js';
import type { ManifestArtifact } from '#protocol/manifest.js';
import { startChunkStage, type ChunkStage } from '#test/chunk-stage.js';
import { sha256Hex } from '#test/hostile-server.js';
import type { Nginx } from '#test/nginx.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import { chunkLayoutKey } from '#node/blobs/chunk-store.js';
import { DEFAULT_CHUNKER_PARAMS, DEFAULT_TREE_LAYOUT } from '#protocol/chunk-index.js';
import {
  bytesOf,
  cliArgs,
  openUpdater,
  runCli,
  tempDirs,
  updateOnce,
  type UpdaterServer,
} from '#test/updater-harness.js';

const MiB = 1024 * 1024;
const dirs = tempDirs();
let nginx: Nginx;
let registry: UpdaterServer;
let stage: ChunkStage;

beforeAll(async () => {
  stage = await startChunkStage(dirs, { wwwPrefix: 'chunk-updater-www-', cdnPath: 'cdn' });
  ({ nginx, registry } = stage);
});

afterAll(async () => {
  await stage.close();
  await dirs.cleanup();
});

type Files = { name: string; content: Uint8Array }[];

/** Publishes `files` with their blobs (artifact, index, list) under nginx /cdn. */
const publish = (files: Files): Promise<ManifestArtifact[]> => stage.publish(files);

const byName = (plan: PlanSummary | null | undefined, name: string): ArtifactPlan | undefined =>
  plan?.artifacts.find((a) => a.name === name);

function edited(base: Uint8Array, at: number, length: number, seed: number): Uint8Array {
  const out = Uint8Array.from(base);
  out.set(bytesOf(length, seed), at);
  return out;
}

describe('chunk deltas in update()', () => {
  it('reports chunks in check and the plan event, then fetches only them', async () => {
    const dir = await dirs.make('chunk-updater-');
    const v1: Files = [
      { name: 'app.bin', content: bytesOf(4 * MiB, 1) },
      { name: 'notes.txt', content: bytesOf(2000, 2) },
    ];
    const [app1] = await publish(v1);
    const before1 = (await nginx.accessLog()).length;
    const first = await updateOnce(registry, dir);
    // Nothing held yet: whole files, no chunk index fetched to plan. After the commit, the
    // published tree of the blob fetched whole is (chunks/tree-of-whole-blob.ts), counted with it.
    expect(byName(first.plan, 'app.bin')).toMatchObject({ method: 'whole', indexBytes: 0 });
    const tree = [app1?.chunk_index?.sha256, app1?.chunk_index?.list_url?.split('/').pop()];
    const treeBytes = (await nginx.accessLog())
      .slice(before1)
      .filter((e) => tree.some((sha) => sha !== undefined && e.uri === `/cdn/${sha}`))
      .reduce((n, e) => n + e.bodyBytesSent, 0);
    expect(treeBytes).toBeGreaterThan(0);
    expect(first.bytesDownloaded).toBe(4 * MiB + 2000 + treeBytes);

    const v2: Files = [
      { name: 'app.bin', content: edited(v1[0]?.content as Uint8Array, 2 * MiB, 100_000, 3) },
      { name: 'notes.txt', content: v1[1]?.content as Uint8Array },
    ];
    await publish(v2);
    const updater = await openUpdater(registry, dir);
    const events: UpdateEvent[] = [];
    updater.on((e) => events.push(e));
    let checked: PlanSummary;
    try {
      checked = await updater.check();
    } finally {
      await updater.close();
    }
    const app = byName(checked, 'app.bin');
    expect(app?.method).toBe('chunks');
    expect(app?.fetchBytes).toBeGreaterThanOrEqual(100_000);
    expect(app?.fetchBytes).toBeLessThan(100_000 + 3 * 64 * 1024);
    expect((app?.fetchBytes ?? 0) + (app?.reusedBytes ?? 0)).toBe(4 * MiB);
    expect(app?.indexBytes).toBeGreaterThan(0);
    expect(byName(checked, 'notes.txt')).toMatchObject({ method: 'reuse', fetchBytes: 0 });
    expect(checked.bytesToFetch).toBe(app?.fetchBytes);
    expect(checked.bytesToReuse).toBe(4 * MiB - (app?.fetchBytes ?? 0) + 2000);
    expect(events.find((e) => e.type === 'update-available')).toMatchObject({ plan: checked });

    const before = (await nginx.accessLog()).length;
    // No source skipped and no fallback to the whole file: the logger hears nothing.
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
    const result = await updateOnce(registry, dir, { logger });
    expect(warnings).toEqual([]);
    expect(result.outcome).toBe('applied');
    expect(result.plan).toEqual(checked);
    const log = (await nginx.accessLog()).slice(before);
    const ranged = log.filter((e) => e.uri.endsWith(sha256Hex(v2[0]?.content as Uint8Array)));
    expect(ranged.length).toBeGreaterThan(0);
    expect(ranged.every((e) => e.status === 206 && e.range.startsWith('bytes='))).toBe(true);
    const served = log.reduce((n, e) => n + e.bodyBytesSent, 0);
    expect(result.bytesDownloaded).toBe(served);
    expect(served).toBeLessThan((app?.fetchBytes ?? 0) + (app?.indexBytes ?? 0) + 16 * 1024);
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({
      'app.bin': sha256Hex(v2[0]?.content as Uint8Array),
      'notes.txt': sha256Hex(v2[1]?.content as Uint8Array),
    });
  });

  it('falls back to the whole file when the chunk list cannot be had', async () => {
    const dir = await dirs.make('chunk-updater-');
    const base = bytesOf(3 * MiB, 11);
    await publish([{ name: 'app.bin', content: base }]);
    await updateOnce(registry, dir);
    const next = edited(base, MiB, 50_000, 12);
    const [entry] = await publish([{ name: 'app.bin', content: next }]);
    const list = entry?.chunk_index?.list_url?.split('/').pop();
    if (list === undefined) throw new Error('no chunk list');
    await rm(join(nginx.root, 'cdn', list));
    const result = await updateOnce(registry, dir);
    expect(byName(result.plan, 'app.bin')).toMatchObject({ method: 'whole', fetchBytes: 3 * MiB });
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({
      'app.bin': sha256Hex(next),
    });
  });
});

describe('chunk deltas when the held blobs cannot be read as chunks', () => {
  it('fetches the whole file, the run does not fail', async () => {
    const dir = await dirs.make('chunk-updater-');
    const base = bytesOf(2 * MiB, 31);
    await publish([{ name: 'app.bin', content: base }]);
    await updateOnce(registry, dir);
    const next = edited(base, MiB, 20_000, 32);
    await publish([{ name: 'app.bin', content: next }]);
    // The chunk tree cache of the release's layout is a file where a directory must be: every
    // local chunk read fails. (A file at `.updater/chunks` itself is a planted entry, refused
    // before any run with STATE_UNSAFE: docs/SECURITY.md §8.)
    const layout = chunkLayoutKey(DEFAULT_CHUNKER_PARAMS, DEFAULT_TREE_LAYOUT);
    const cache = join(dir, '.updater', 'chunks', layout);
    await rm(cache, { recursive: true, force: true });
    await writeFile(cache, 'not a directory');
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
    const result = await updateOnce(registry, dir, { logger });
    expect(byName(result.plan, 'app.bin')).toMatchObject({ method: 'whole', fetchBytes: 2 * MiB });
    expect(warnings).toContain('chunk planning failed, fetching the whole file');
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({
      'app.bin': sha256Hex(next),
    });
  });
});

describe('chunk deltas in the CLI', () => {
  it('check --json prints each artifact with its method, fetch and reused bytes', async () => {
    const dir = await dirs.make('chunk-updater-cli-');
    const base = bytesOf(2 * MiB, 21);
    await publish([{ name: 'app.bin', content: base }]);
    await updateOnce(registry, dir);
    await publish([{ name: 'app.bin', content: edited(base, 10_000, 4096, 22) }]);
    const target = { ...registry, dir };
    const r = await runCli(cliArgs('check', target));
    expect(r.exitCode).toBe(0);
    const plan = r.json?.['plan'] as { artifacts: Record<string, unknown>[] } & Record<
      string,
      unknown
    >;
    const [app] = plan.artifacts;
    expect(Object.keys(app ?? {}).sort()).toEqual([
      'fetch_bytes',
      'index_bytes',
      'method',
      'name',
      'reused_bytes',
      'size',
    ]);
    expect(app).toMatchObject({ name: 'app.bin', size: 2 * MiB, method: 'chunks' });
    const fetchBytes = app?.['fetch_bytes'] as number;
    expect(fetchBytes).toBeGreaterThanOrEqual(4096);
    expect(fetchBytes).toBeLessThanOrEqual(2 * 64 * 1024);
    expect(app?.['reused_bytes']).toBe(2 * MiB - fetchBytes);
    expect(plan['bytes_to_fetch']).toBe(fetchBytes);
  });
});
