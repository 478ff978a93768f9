/**
 * The data directory's lock (server/src/platform/dir-lock.ts): taken whole or not at all,
 * held against other takers while its owner lives, taken over once its owner is gone, and a
 * torn record (written by an older server) judged by its age.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockHeld, takeLock } from '#server/platform/dir-lock.js';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dir-lock-'));
  path = join(dir, 'publish.lock');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has already exited. */
function deadPid(): number {
  const run = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(run.stdout);
}

describe('the data directory lock', () => {
  it('holds a whole record of its owner, leaves no file of its own, and is gone once released', async () => {
    const release = await takeLock(path);
    const record = JSON.parse(await readFile(path, 'utf8')) as { pid: number };
    expect(record.pid).toBe(process.pid);
    expect(await readdir(dir)).toEqual(['publish.lock']);
    await expect(takeLock(path)).rejects.toBeInstanceOf(LockHeld);
    await release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over the lock of an owner that is gone', async () => {
    await writeFile(path, `${JSON.stringify({ pid: deadPid(), started_at: 'then' })}\n`);
    const release = await takeLock(path);
    expect((JSON.parse(await readFile(path, 'utf8')) as { pid: number }).pid).toBe(process.pid);
    await release();
  });

  it('removes the record files that owners killed before linking them left, not a live one’s', async () => {
    const dead = join(dir, `.publish.lock.${deadPid()}-1.tmp`);
    const live = join(dir, `.publish.lock.${process.ppid}-3.tmp`);
    await writeFile(dead, '{"pid":');
    await writeFile(live, '{"pid":');
    const release = await takeLock(path);
    expect((await readdir(dir)).sort()).toEqual([
      `.publish.lock.${process.ppid}-3.tmp`,
      'publish.lock',
    ]);
    await release();
  });

  it('judges an unreadable record by its age: held within the grace, taken after it', async () => {
    await writeFile(path, '');
    await expect(takeLock(path, 60_000)).rejects.toBeInstanceOf(LockHeld);
    const old = new Date(Date.now() - 120_000);
    await utimes(path, old, old);
    const release = await takeLock(path, 60_000);
    expect(await readFile(path, 'utf8')).toContain(`"pid":${process.pid}`);
    await release();
  });
});
