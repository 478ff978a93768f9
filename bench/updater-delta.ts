/**
 * Bytes moved when 1 of 100 artifacts changed: install release 1 (100 artifacts), publish
 * release 2 with one artifact's content changed, update, and count what the server wrote.
 * Target: artifact bytes moved <= 1.01x the changed bytes.
 *
 *   npx tsx bench/updater-delta.ts           (BENCH_ARTIFACT_KIB=1024, 100 artifacts)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeUpdater } from '#node/create-updater.js';
import { startHostileServer } from '#test/hostile-server.js';
import { bytesOf } from '#test/updater-harness.js';
import { envInt, mib, printTable } from './updater-kit.js';

const COUNT = 100;
const SIZE = envInt('BENCH_ARTIFACT_KIB', 1024) * 1024;

const server = await startHostileServer();
const dir = await mkdtemp(join(tmpdir(), 'bench-delta-'));
try {
  const v1 = Array.from({ length: COUNT }, (_, i) => ({
    name: `pkg/part-${String(i).padStart(3, '0')}.bin`,
    content: bytesOf(SIZE, i + 1),
  }));
  const run = async (): Promise<number> => {
    const u = await createNodeUpdater({
      baseUrl: server.baseUrl,
      machineKey: server.machineKey,
      pubkeys: [server.pubkeyHex],
      dir,
    });
    try {
      return (await u.update()).bytesDownloaded;
    } finally {
      await u.close();
    }
  };
  await server.publish({ version: '1.0.0', files: v1 });
  const first = await run();
  const firstServed = server.bytesServed();
  server.resetCounters();

  const v2 = v1.map((f, i) => (i === 42 ? { ...f, content: bytesOf(SIZE, 4242) } : f));
  await server.publish({ version: '2.0.0', files: v2 });
  const reported = await run();
  const artifactBytes = server.bytesServed();
  const manifestBytes = server.manifestBytesServed();
  const ratio = artifactBytes / SIZE;
  printTable(`bytes moved when 1 of ${COUNT} artifacts changed (target <= 1.01x)`, [
    ['artifact size', mib(SIZE)],
    ['release 1: served / client-reported', `${mib(firstServed)} / ${mib(first)}`],
    ['changed bytes', `${SIZE}`],
    ['release 2: artifact bytes served', `${artifactBytes}`],
    ['release 2: client bytes_downloaded', `${reported}`],
    ['release 2: manifest bytes served', `${manifestBytes}`],
    ['artifact bytes / changed bytes', `${ratio.toFixed(4)}x`],
    ['(artifact + manifest) / changed', `${((artifactBytes + manifestBytes) / SIZE).toFixed(4)}x`],
    ['requests for release 2', `${server.artifactRequests.length}`],
    ['target met', ratio <= 1.01 ? 'yes' : 'no'],
  ]);
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
