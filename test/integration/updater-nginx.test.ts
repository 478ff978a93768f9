/**
 * Artifacts served by a real nginx on loopback (docs/UPDATER.md §8: artifact URLs may point at another
 * host; they are untrusted because every byte is checked against the signed digest). The
 * manifest is signed by the hostile server's key and lists absolute nginx URLs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '#server/compose/start-server.js';
import { sha256Hex } from '#test/hostile-server.js';
import { expectedFiles, nginxSuite } from '#test/nginx-release.js';
import { filesOf, snapshotObject, snapshotTree } from '#test/tree-snapshot.js';
import { bytesOf, expectRefusal, updateOnce } from '#test/updater-harness.js';

const ARTIFACT_COUNT = 10;
const ARTIFACT_BYTES = 32 * 1024;

const s = nginxSuite({ count: ARTIFACT_COUNT, bytes: ARTIFACT_BYTES, prefix: 'qa-nginx' });

const update = (): Promise<{ outcome: string; bytesDownloaded: number }> =>
  updateOnce(s.server, s.dir);

describe('artifacts on a static nginx host', () => {
  it('installs a release whose artifacts nginx serves, without sending it the machine key', async () => {
    const v1 = s.release(100);
    await s.publish('1.0.0', v1);
    const result = await update();
    expect(result.outcome).toBe('applied');
    expect(filesOf(await snapshotTree(join(s.dir, 'current')))).toEqual(expectedFiles(v1));
    const log = (await s.nginx.accessLog()).filter((a) => a.uri.startsWith('/1.0.0/'));
    expect(log.length).toBe(ARTIFACT_COUNT);
    expect(log.every((a) => a.status === 200 && !a.hadAuthorization)).toBe(true);
  });

  it('pulls only the changed artifact from nginx on the next release', async () => {
    const v1 = s.release(200);
    await s.publish('1.1.0', v1);
    await update();
    const v2 = v1.map((f, i) => (i === 3 ? { ...f, content: bytesOf(ARTIFACT_BYTES, 999) } : f));
    await s.publish('1.2.0', v2);
    const result = await update();
    expect(result.outcome).toBe('applied');
    expect(result.bytesDownloaded).toBe(ARTIFACT_BYTES);
    const log = (await s.nginx.accessLog()).filter((a) => a.uri.startsWith('/1.2.0/'));
    expect(log.map((a) => a.uri)).toEqual(['/1.2.0/pkg/part-03.bin']);
    expect(log[0]?.bodyBytesSent).toBe(ARTIFACT_BYTES);
    expect(filesOf(await snapshotTree(join(s.dir, 'current')))).toEqual(expectedFiles(v2));
  });

  it('refuses a file tampered with on nginx (HASH_MISMATCH) and leaves DIR/current as it was', async () => {
    const v1 = s.release(300);
    await s.publish('2.0.0', v1);
    await update();
    const before = snapshotObject(await snapshotTree(join(s.dir, 'current')));
    const v2 = v1.map((f, i) => (i === 5 ? { ...f, content: bytesOf(ARTIFACT_BYTES, 555) } : f));
    await s.publish('2.1.0', v2);
    // The attacker controls the static host, not the signing key: same length, other bytes.
    await writeFile(join(s.root, '2.1.0', 'pkg/part-05.bin'), bytesOf(ARTIFACT_BYTES, 666));
    await expectRefusal(update(), 'HASH_MISMATCH');
    expect(snapshotObject(await snapshotTree(join(s.dir, 'current')))).toEqual(before);
  });

  it('refuses a file on nginx longer than signed (SIZE_MISMATCH) and leaves DIR/current as it was', async () => {
    const v1 = s.release(400);
    await s.publish('3.0.0', v1);
    await update();
    const before = snapshotObject(await snapshotTree(join(s.dir, 'current')));
    const v2 = v1.map((f, i) => (i === 7 ? { ...f, content: bytesOf(ARTIFACT_BYTES, 777) } : f));
    await s.publish('3.1.0', v2);
    const longer = new Uint8Array(ARTIFACT_BYTES + 4096);
    longer.set(bytesOf(ARTIFACT_BYTES, 777));
    await writeFile(join(s.root, '3.1.0', 'pkg/part-07.bin'), longer);
    await expectRefusal(update(), 'SIZE_MISMATCH');
    expect(snapshotObject(await snapshotTree(join(s.dir, 'current')))).toEqual(before);
  });
});

describe('the companion server with artifact_base_url on nginx', () => {
  it('installs a release the companion server published with its artifacts on nginx', async () => {
    const companion = await startServer({ simulate: false });
    try {
      const { machine_key } = await companion.updates.mintMachineKey();
      const files = s.release(500);
      // The companion server lists `<artifact_base_url>/<sha256>`: put the blobs there.
      for (const f of files) {
        const path = join(s.root, 'cdn', sha256Hex(f.content));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, f.content);
      }
      const published = await companion.publish({
        registry_version: '1.0.0',
        artifacts: files,
        artifact_base_url: `${s.nginx.baseUrl}/cdn`,
      });
      // Its packs (docs/PROTOCOL.md §2.8) are not on the host: one 404 each, then whole files.
      const packs = new Set(published.artifacts.flatMap((a) => (a.pack ? [a.pack.sha256] : [])));
      const registry = {
        baseUrl: companion.url,
        machineKey: machine_key,
        pubkeyHex: companion.nodePubkey,
      };
      const result = await updateOnce(registry, s.dir);
      expect(result.outcome).toBe('applied');
      expect(result.bytesDownloaded).toBe(ARTIFACT_COUNT * ARTIFACT_BYTES);
      expect(filesOf(await snapshotTree(join(s.dir, 'current')))).toEqual(expectedFiles(files));
      const log = (await s.nginx.accessLog()).filter((a) => a.uri.startsWith('/cdn/'));
      expect(log.filter((a) => !packs.has(a.uri.slice('/cdn/'.length))).length).toBe(
        ARTIFACT_COUNT,
      );
      expect(log.some((a) => a.hadAuthorization)).toBe(false);

      // A blob tampered with on the static host is refused, and nothing changes.
      const before = snapshotObject(await snapshotTree(join(s.dir, 'current')));
      const next = files.map((f, i) =>
        i === 0 ? { ...f, content: bytesOf(ARTIFACT_BYTES, 9001) } : f,
      );
      const changed = next[0]?.content ?? new Uint8Array();
      await writeFile(join(s.root, 'cdn', sha256Hex(changed)), bytesOf(ARTIFACT_BYTES, 9002));
      await companion.publish({
        registry_version: '1.1.0',
        artifacts: next,
        artifact_base_url: `${s.nginx.baseUrl}/cdn`,
      });
      await expectRefusal(updateOnce(registry, s.dir), 'HASH_MISMATCH');
      expect(snapshotObject(await snapshotTree(join(s.dir, 'current')))).toEqual(before);
    } finally {
      await companion.close();
    }
  });
});
