/**
 * A commit that fails part-way (an I/O error after the journal is written, e.g. ENOSPC) leaves
 * its journal. Replaying that journal later must never lower the rollback floor that a newer
 * check raised in the meantime, and the same process finishes it before it reads its state.
 */
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeUpdater } from '#node/create-updater.js';
import { startHostileServer } from '#test/hostile-server.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function scenario() {
  const server = await startHostileServer();
  const dir = await mkdtemp(join(tmpdir(), 'updater-journal-'));
  cleanups.push(
    () => server.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
  let failNext = false;
  const open = () =>
    createNodeUpdater({
      baseUrl: server.baseUrl,
      machineKey: server.machineKey,
      pubkeys: [server.pubkeyHex],
      dir,
      // Stands in for a disk error right after DIR/current was swapped.
      onStep: (step) => {
        if (step === 'current-swapped' && failNext) {
          failNext = false;
          throw new Error('ENOSPC: no space left on device (simulated)');
        }
      },
    });
  const floor = async (): Promise<unknown> =>
    (
      JSON.parse(await readFile(join(dir, '.updater/state.json'), 'utf8')) as Record<
        string,
        unknown
      >
    )['highestAcceptedVersion'];
  await server.publish({ version: '1.0.0', files: [{ name: 'a.txt', content: enc('1\n') }] });
  const first = await open();
  await first.update();
  await server.publish({ version: '2.0.0', files: [{ name: 'a.txt', content: enc('2\n') }] });
  failNext = true;
  // The set is live: the failure is its clean-up's, said as such (commit-journal.ts).
  await expect(first.update()).rejects.toMatchObject({ code: 'CLEANUP_PENDING' });
  return { server, dir, open, floor, first };
}

describe('a commit journal left by a failed commit', () => {
  it('replayed at the next start never lowers a floor raised after it', async () => {
    const { server, open, floor, first } = await scenario();
    await server.publish({ version: '3.0.0', files: [{ name: 'a.txt', content: enc('3\n') }] });
    await first.check();
    expect(await floor()).toBe('3.0.0');
    await first.close();

    const restarted = await open();
    cleanups.push(() => restarted.close());
    expect(await floor()).toBe('3.0.0');
    await server.publish({ version: '2.5.0', files: [{ name: 'a.txt', content: enc('2.5\n') }] });
    await expect(restarted.update()).rejects.toMatchObject({ code: 'ROLLBACK' });
  });

  it('is finished by the same process before its next read of the state', async () => {
    const { first } = await scenario();
    cleanups.push(() => first.close());
    // The swap happened; the journal finishes it, so status names 2.0.0, not the stale 1.0.0.
    expect((await first.status()).installedVersion).toBe('2.0.0');
  });
});

describe('a set kept after a rollback', () => {
  it('is rebuilt from verified blobs on re-update, never reused after local tampering', async () => {
    const server = await startHostileServer();
    const dir = await mkdtemp(join(tmpdir(), 'updater-kept-set-'));
    cleanups.push(
      () => server.close(),
      () => rm(dir, { recursive: true, force: true }),
    );
    const updater = await createNodeUpdater({
      baseUrl: server.baseUrl,
      machineKey: server.machineKey,
      pubkeys: [server.pubkeyHex],
      dir,
    });
    cleanups.push(() => updater.close());
    await server.publish({ version: '1.0.0', files: [{ name: 'app.txt', content: enc('one\n') }] });
    await updater.update();
    await server.publish({ version: '2.0.0', files: [{ name: 'app.txt', content: enc('two\n') }] });
    await updater.update();
    await updater.rollback();
    // Written in place: the kept set's file is a hard link, so its blob is damaged too.
    const sets = join(dir, '.updater', 'sets');
    for (const set of await readdir(sets)) {
      const path = join(sets, set, 'app.txt');
      if ((await readFile(path, 'utf8')) === 'two\n') {
        await chmod(path, 0o644);
        await writeFile(path, 'TAMPERED\n');
      }
    }
    const result = await updater.update();
    expect(result).toMatchObject({ outcome: 'applied', version: '2.0.0' });
    expect(await readFile(join(dir, 'current', 'app.txt'), 'utf8')).toBe('two\n');
    expect((await updater.verify()).ok).toBe(true);
  });
});
