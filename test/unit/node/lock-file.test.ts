import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, processStartTime } from '../../../src/node/lock-file.js';
import { tempDirs } from './temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** The PID of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('acquireLock', () => {
  it('takes a free lock and writes our PID', async () => {
    const path = join(await dirs.make(), 'lock');
    const lock = await acquireLock(path);
    expect((await readFile(path, 'utf8')).split(' ')[0]?.trim()).toBe(String(process.pid));
    await lock.release();
  });

  it('refuses a lock held by a live process (LOCKED)', async () => {
    const path = join(await dirs.make(), 'lock');
    const lock = await acquireLock(path);
    await expect(acquireLock(path)).rejects.toMatchObject({ code: 'LOCKED' });
    await lock.release();
  });

  it('can be taken again after release', async () => {
    const path = join(await dirs.make(), 'lock');
    await (await acquireLock(path)).release();
    const again = await acquireLock(path);
    await again.release();
    await expect(readFile(path)).rejects.toThrow();
  });

  it('takes over a stale lock of a dead PID', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, `${deadPid()}\n`);
    const lock = await acquireLock(path);
    expect((await readFile(path, 'utf8')).split(' ')[0]?.trim()).toBe(String(process.pid));
    await lock.release();
  });

  it('takes over a lock whose live PID has another start time (PID reused)', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, `${process.pid} 1\n`);
    const lock = await acquireLock(path);
    await lock.release();
  });

  it('refuses a lock naming this process with its real start time (LOCKED)', async () => {
    const path = join(await dirs.make(), 'lock');
    const start = processStartTime(process.pid);
    await writeFile(path, start === undefined ? `${process.pid}\n` : `${process.pid} ${start}\n`);
    await expect(acquireLock(path)).rejects.toMatchObject({ code: 'LOCKED' });
  });

  it('leaves a stale lock alone while another live process holds the takeover guard (LOCKED)', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, `${deadPid()}\n`);
    // A live takeover in progress: only its holder may remove the stale lock.
    await writeFile(
      `${path}.takeover`,
      `${process.pid} ${processStartTime(process.pid) ?? ''}`.trim(),
    );
    await expect(acquireLock(path)).rejects.toMatchObject({ code: 'LOCKED' });
    expect(await readFile(`${path}.takeover`, 'utf8')).toContain(String(process.pid));
  });

  it('clears a takeover guard left by a dead process, then takes the stale lock', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, `${deadPid()}\n`);
    await writeFile(`${path}.takeover`, `${deadPid()}\n`);
    const lock = await acquireLock(path);
    expect((await readFile(path, 'utf8')).split(' ')[0]?.trim()).toBe(String(process.pid));
    await lock.release();
  });

  it('takes over a lock file with garbage content', async () => {
    const path = join(await dirs.make(), 'lock');
    await writeFile(path, 'garbage');
    const lock = await acquireLock(path);
    await lock.release();
  });
});
