/**
 * Resume (docs/UPDATER.md §1, step 6): an interrupted pull continues from the partial file with
 * Range + If-Range (RFC 9110 §14.2, §13.1.5), within a run (retry) and across a restart. The
 * hostile server counts the bytes it writes, so re-fetched bytes are measured, not assumed.
 */
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Limits } from '#core/limits.js';
import { sha256Hex, startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import {
  bytesOf,
  cliArgs,
  expectRefusal,
  runCli,
  tempDirs,
  updateOnce,
} from '#test/updater-harness.js';

const SIZE = 4 * 1024 * 1024;
const BIG = bytesOf(SIZE, 77);
const FILES = [{ name: 'big.bin', content: BIG }];
const MiB = 1024 * 1024;

const dirs = tempDirs();
let server: HostileServer;
let dir: string;

const update = (limits: Partial<Limits> = {}): Promise<{ outcome: string }> =>
  updateOnce(server, dir, { limits });

/** Total size of the partial downloads under DIR/.updater/partial (0 when none). */
async function partialBytes(): Promise<number> {
  const partial = join(dir, '.updater', 'partial');
  let total = 0;
  for (const name of await readdir(partial).catch(() => [])) {
    if (name.endsWith('.part')) total += (await stat(join(partial, name))).size;
  }
  return total;
}

/** The byte offset a Range request asked for ("bytes=N-" -> N). */
function rangeStart(range: string | undefined): number {
  const m = /^bytes=(\d+)-$/.exec(range ?? '');
  if (m === null) throw new Error(`not an open Range: ${String(range)}`);
  return Number(m[1]);
}

beforeEach(async () => {
  server = await startHostileServer();
  dir = await dirs.make('qa-resume-');
  await server.publish({ version: '1.0.0', files: FILES });
});

afterEach(async () => {
  await server.close();
  await dirs.cleanup();
});

describe('resume with Range + If-Range', () => {
  it('resumes within a run after the connection drops mid-artifact', async () => {
    server.setArtifactAttack('big.bin', { kind: 'drop', afterBytes: SIZE / 2, times: 1 });
    expect((await update({ retries: 2 })).outcome).toBe('applied');
    const [first, second] = server.artifactRequests;
    expect(first?.range).toBeUndefined();
    const start = rangeStart(second?.range);
    expect(start).toBeGreaterThan(0);
    expect(start).toBeLessThanOrEqual(SIZE / 2);
    expect(second?.ifRange).toBe(`"${sha256Hex(BIG)}"`);
    const refetched = server.bytesServed('big.bin') - SIZE;
    expect(refetched).toBeLessThanOrEqual(MiB);
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({
      'big.bin': sha256Hex(BIG),
    });
  });

  it('resumes after a restart from the partial file left by a failed run', async () => {
    server.setArtifactAttack('big.bin', { kind: 'drop', afterBytes: (3 * SIZE) / 4 });
    await expectRefusal(update({ retries: 0 }), 'NETWORK');
    const firstRun = server.bytesServed('big.bin');
    server.setArtifactAttack('big.bin', undefined);
    server.resetCounters();

    expect((await update()).outcome).toBe('applied');
    const [request] = server.artifactRequests;
    const start = rangeStart(request?.range);
    expect(request?.ifRange).toBe(`"${sha256Hex(BIG)}"`);
    expect(server.bytesServed('big.bin')).toBe(SIZE - start);
    // Re-fetched = bytes served in the first run that the second run asked for again.
    expect(firstRun - start).toBeLessThanOrEqual(MiB);
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({
      'big.bin': sha256Hex(BIG),
    });
  });

  it('resumes after the CLI was killed (kill -9) with a chunk on disk', async () => {
    const crashed = await runCli(cliArgs('update', { ...server, dir }, ['--retries', '0']), {
      env: { UPDATER_TEST_CRASH_AT: 'partial-written' },
    });
    expect(crashed.signal).toBe('SIGKILL');
    // The server's own count includes bytes still in kernel socket buffers when the client
    // died, so what the client had made durable is read from its partial file instead.
    const durable = await partialBytes();
    expect(durable).toBeGreaterThan(0);
    server.resetCounters();

    expect((await update()).outcome).toBe('applied');
    const [request] = server.artifactRequests;
    const start = rangeStart(request?.range);
    expect(request?.ifRange).toBe(`"${sha256Hex(BIG)}"`);
    // Nothing that was on disk is fetched again.
    expect(start).toBe(durable);
    expect(server.bytesServed('big.bin')).toBe(SIZE - start);
  });

  it('starts over when the server ignores the Range (200), and still installs exactly', async () => {
    server.setArtifactAttack('big.bin', { kind: 'drop', afterBytes: SIZE / 2 });
    await expectRefusal(update({ retries: 0 }), 'NETWORK');
    server.setArtifactAttack('big.bin', { kind: 'ignore-range' });
    server.resetCounters();
    expect((await update()).outcome).toBe('applied');
    expect(server.artifactRequests[0]?.range).toMatch(/^bytes=\d+-$/);
    // The partial bytes were dropped and the whole body, served once, was used.
    expect(server.bytesServed('big.bin')).toBe(SIZE);
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({
      'big.bin': sha256Hex(BIG),
    });
  });

  it('drops a partial altered on disk and fetches the artifact again from byte 0', async () => {
    server.setArtifactAttack('big.bin', { kind: 'drop', afterBytes: SIZE / 2 });
    await expectRefusal(update({ retries: 0 }), 'NETWORK');
    const partial = join(dir, '.updater', 'partial');
    const part = (await readdir(partial)).find((n) => n.endsWith('.part'));
    if (part === undefined) throw new Error('no partial file was kept');
    // Flip one byte of what was already received: the resumed bytes are re-hashed, so only
    // the whole-file digest can tell, and the client must start over rather than install it.
    const handle = await open(join(partial, part), 'r+');
    try {
      const one = Buffer.alloc(1);
      await handle.read(one, 0, 1, 1000);
      one[0] = (one[0] ?? 0) ^ 0xff;
      await handle.write(one, 0, 1, 1000);
    } finally {
      await handle.close();
    }
    server.setArtifactAttack('big.bin', undefined);
    server.resetCounters();
    expect((await update()).outcome).toBe('applied');
    expect(filesOf(await snapshotTree(join(dir, 'current')))).toEqual({
      'big.bin': sha256Hex(BIG),
    });
    const ranges = server.artifactRequests.map((r) => r.range);
    expect(ranges[0]).toMatch(/^bytes=\d+-$/);
    expect(ranges.at(-1)).toBeUndefined();
  });
});
