/**
 * One publisher at a time and nothing left behind (docs/SERVER.md §One publisher at a time):
 * a live lock refuses with 409 PUBLISH_IN_PROGRESS, a dead owner's lock is taken over, a
 * two publishers on one data directory never both acknowledge the same version, a failed publish removes the blobs it stored, and start-up removes what a crash
 * left (and only that).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { isServerError } from '#server/server-error.js';

let work: string;
let server: RunningServer | undefined;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'server-publish-lock-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(work, { recursive: true, force: true });
});

async function blobNames(dataDir: string): Promise<string[]> {
  const root = join(dataDir, 'blobs');
  const out: string[] = [];
  for (const d of await readdir(root).catch(() => [])) {
    for (const f of await readdir(join(root, d)).catch(() => [])) out.push(`${d}/${f}`);
  }
  return out.sort();
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'OK';
  } catch (error) {
    return isServerError(error) ? error.code : String(error);
  }
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text));

describe('the publish lock', () => {
  it('refuses while a live process holds it, and publishes once it is gone', async () => {
    const dataDir = join(work, 'd');
    server = await startServer({ dataDir, simulate: false });
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
    try {
      const lock = join(dataDir, 'publish.lock');
      await writeFile(lock, JSON.stringify({ pid: sleeper.pid, started_at: 'x' }));
      const input = { registry_version: '1.0.0', artifacts: [{ name: 'a', content: bytes('a') }] };
      expect(await codeOf(server.publish(input))).toBe('PUBLISH_IN_PROGRESS');
      await rm(lock);
      expect(await codeOf(server.publish(input))).toBe('OK');
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('takes over the lock of a process that is gone (killed with -9)', async () => {
    const dataDir = join(work, 'd');
    server = await startServer({ dataDir, simulate: false });
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.on('exit', resolve));
    await writeFile(join(dataDir, 'publish.lock'), JSON.stringify({ pid: dead.pid }));
    const input = { registry_version: '1.0.0', artifacts: [{ name: 'a', content: bytes('a') }] };
    expect(await codeOf(server.publish(input))).toBe('OK');
  });
});

describe('two publishers on one data directory', () => {
  it('acknowledge exactly one publish of each version, racing or back to back', async () => {
    const dataDir = join(work, 'd');
    server = await startServer({ dataDir, simulate: false });
    const other = await startServer({ dataDir, simulate: false });
    try {
      for (let round = 0; round < 8; round += 1) {
        const version = `3.0.${round}`;
        const input = (who: string) => ({
          registry_version: version,
          artifacts: [{ name: who, content: bytes(`${who} ${round}`) }],
        });
        // Even rounds race; odd rounds go back to back (before the other's watcher reloads).
        const codes =
          round % 2 === 0
            ? await Promise.all([
                codeOf(server.publish(input('a'))),
                codeOf(other.publish(input('b'))),
              ])
            : [await codeOf(server.publish(input('a'))), await codeOf(other.publish(input('b')))];
        expect(codes.filter((c) => c === 'OK')).toHaveLength(1);
        for (const c of codes)
          expect(['OK', 'PUBLISH_IN_PROGRESS', 'VERSION_NOT_INCREASING']).toContain(c);
      }
    } finally {
      await other.close();
    }
  });
});

describe('nothing leaks', () => {
  it('removes the blobs of a failed publish, keeps those of served releases', async () => {
    const dataDir = join(work, 'd');
    server = await startServer({ dataDir, simulate: false });
    await server.publish({
      registry_version: '1.0.0',
      artifacts: [{ name: 'kept', content: bytes('kept') }],
    });
    const before = await blobNames(dataDir);
    const failed = server.publish({
      registry_version: '1.1.0',
      artifacts: [
        { name: 'a', content: bytes('stored, then orphaned') },
        { name: 'b', path: join(work, 'no-such-file') },
      ],
    });
    expect(await codeOf(failed)).not.toBe('OK');
    expect(await blobNames(dataDir)).toEqual(before);
    expect(await codeOf(server.publish({ registry_version: '1.1.0', artifacts: [] }))).toBe('OK');
  });

  it('removes at start-up the temp files and unreferenced blobs a crash left', async () => {
    const dataDir = join(work, 'd');
    server = await startServer({ dataDir, simulate: false });
    await server.publish({
      registry_version: '1.0.0',
      artifacts: [{ name: 'k', content: bytes('k') }],
    });
    await server.close();
    server = undefined;
    const served = await blobNames(dataDir);
    const orphan = 'ab'.repeat(32);
    await mkdir(join(dataDir, 'blobs', 'ab'), { recursive: true });
    await writeFile(join(dataDir, 'blobs', 'ab', orphan), 'orphan');
    await writeFile(join(dataDir, 'blobs', '.incoming.123456.tmp'), 'half');
    await writeFile(join(dataDir, 'releases', '.1.1.0.json.abcdef.tmp'), 'half');
    server = await startServer({ dataDir, simulate: false });
    expect(await blobNames(dataDir)).toEqual(served);
    expect((await readdir(join(dataDir, 'blobs'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect((await readdir(join(dataDir, 'releases'))).filter((n) => n.endsWith('.tmp'))).toEqual(
      [],
    );
  });
});
