/**
 * A full disk (docs/SERVER.md §Faults) on a small tmpfs: every write route answers
 * 507 INSUFFICIENT_STORAGE, a publish that runs out of space leaves no blob and no temporary
 * file behind, and once space is freed the same publish and mint succeed. Mounting needs root
 * on Linux (the abuse runs of the issue tracker run so).
 */
import { execFileSync } from 'node:child_process';
import { readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { postJsonTo } from '#test/post-json.js';

const canMount = process.platform === 'linux' && process.getuid?.() === 0;

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name).slice(dir.length + 1));
  }
  return out.sort();
}

async function fill(path: string): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, 7);
  const parts: Buffer[] = [];
  for (let i = 0; i < 1024; i += 1) parts.push(chunk);
  // One big write: fails with ENOSPC once the mount is full, leaving what fit.
  await writeFile(path, Buffer.concat(parts)).catch(() => undefined);
}

/**
 * Unmounts `mount`, waiting (at most 5 s) while a file closed just before is still being
 * released: on a loaded machine umount can find the target busy for a moment after the server
 * closed; a file that stays open still fails the test.
 */
async function unmount(mount: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      execFileSync('umount', [mount], { stdio: 'pipe' });
      return;
    } catch (error) {
      const busy = String((error as { stderr?: Buffer }).stderr ?? '').includes('busy');
      if (!busy || attempt >= 50) throw error;
      await sleep(100);
    }
  }
}

describe.runIf(canMount)('a full disk', () => {
  let mount: string;
  let server: RunningServer | undefined;
  beforeAll(() => {
    mount = execFileSync('mktemp', ['-d', join(tmpdir(), 'server-full-disk-XXXXXX')])
      .toString()
      .trim();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount]);
  });
  afterAll(async () => {
    await server?.close();
    await unmount(mount);
    await rm(mount, { recursive: true, force: true });
  });

  it('answers 507 on every write, leaks nothing, and works again once space is freed', async () => {
    const dataDir = join(mount, 'data');
    server = await startServer({ dataDir, dev: true, simulate: false });
    const before = await filesUnder(join(dataDir, 'blobs')).catch(() => []);
    const filler = join(mount, 'filler');
    await fill(filler);
    const minted = await postJsonTo(`${server.url}/api/demo-key/mint`, {});
    expect(minted.status).toBe(507);
    expect(minted.json).toMatchObject({ ok: false, code: 'INSUFFICIENT_STORAGE' });
    const release = {
      registry_version: '1.0.0',
      artifacts: [
        { name: 'small.bin', content_base64: Buffer.alloc(64 * 1024, 2).toString('base64') },
        { name: 'big.bin', content_base64: Buffer.alloc(1024 * 1024, 1).toString('base64') },
      ],
    };
    // Room for the lock and the small artifact, not for the big one.
    await truncate(filler, Math.max(0, (await stat(filler)).size - 256 * 1024));
    const published = await postJsonTo(`${server.url}/api/dev/releases`, release);
    expect(published.status).toBe(507);
    expect(published.json).toMatchObject({ code: 'INSUFFICIENT_STORAGE' });
    // Nothing of the failed publish stays: the blobs are as before, no temporary file anywhere.
    expect(await filesUnder(join(dataDir, 'blobs')).catch(() => [])).toEqual(before);
    expect((await filesUnder(dataDir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect((await readdir(dataDir)).includes('publish.lock')).toBe(false);

    await rm(filler);
    const again = await postJsonTo(`${server.url}/api/dev/releases`, release);
    expect(again.status).toBe(200);
    expect((await postJsonTo(`${server.url}/api/demo-key/mint`, {})).status).toBe(200);
  }, 60_000);
});
