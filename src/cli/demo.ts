/**
 * `npm run demo`: starts the companion server in-process with a demo release, mints a
 * machine key, installs with the updater, publishes a second release that changes one
 * artifact, updates again and shows that only the changed bytes moved. Leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../server/src/start-server.js';
import type { UpdaterApi } from '../core/updater-api.js';
import { createNodeUpdater } from '../node/create-updater.js';
import { outliveReader } from './broken-pipe.js';
import { formatBytes } from './progress-bar.js';

const ARTIFACTS = 20;
const ARTIFACT_BYTES = 256 * 1024;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const server = await startServer({ dev: true, port: 0, host: '127.0.0.1' });
  const dir = await mkdtemp(join(tmpdir(), 'updater-demo-'));
  let updater: UpdaterApi | undefined;
  try {
    const files = Array.from({ length: ARTIFACTS }, (_, i) => ({
      name: `app/part-${String(i).padStart(2, '0')}.bin`,
      content: new Uint8Array(randomBytes(ARTIFACT_BYTES)),
    }));
    await server.publish({ registry_version: '1.0.0', artifacts: files });
    say(`server ${server.url}, node_pubkey ${server.nodePubkey}`);
    const minted = await fetch(`${server.url}/api/demo-key/mint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const { machine_key: machineKey } = (await minted.json()) as { machine_key: string };
    say(`minted a machine key; state directory ${dir}`);

    updater = await createNodeUpdater({
      baseUrl: server.url,
      machineKey,
      pubkeys: [server.nodePubkey],
      dir,
    });
    const plan1 = await updater.check();
    say(`check: ${plan1.fetch.length} artifacts to fetch, ${formatBytes(plan1.bytesToFetch)}`);
    const first = await updater.update();
    say(`update: applied ${first.version ?? ''}, ${formatBytes(first.bytesDownloaded)} downloaded`);

    const changed = files.map((f, i) =>
      i === 7 ? { name: f.name, content: new Uint8Array(randomBytes(ARTIFACT_BYTES)) } : f,
    );
    await server.publish({ registry_version: '1.1.0', artifacts: changed });
    const plan2 = await updater.check();
    say(
      `check: ${plan2.fetch.length} to fetch (${formatBytes(plan2.bytesToFetch)}), ` +
        `${plan2.reuse.length} reused (${formatBytes(plan2.bytesToReuse)})`,
    );
    const second = await updater.update();
    const total = ARTIFACTS * ARTIFACT_BYTES;
    say(
      `update: applied ${second.version ?? ''}, ${formatBytes(second.bytesDownloaded)} of ` +
        `${formatBytes(total)} moved (${((100 * second.bytesDownloaded) / total).toFixed(1)}%)`,
    );
    const report = await updater.verify();
    say(
      `verify: ${report.ok ? 'no drift' : `${report.drift.length} drifted`} in ${report.version ?? ''}`,
    );
    say(
      `installed: ${(await readdir(join(dir, 'current', 'app'))).length} files under DIR/current/app`,
    );
    if (second.bytesDownloaded !== ARTIFACT_BYTES) {
      throw new Error(`expected exactly ${ARTIFACT_BYTES} bytes to move`);
    }
  } finally {
    await updater?.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

// `npm run demo | head -3` still removes what it made (broken-pipe.ts).
outliveReader(process.stdout);
outliveReader(process.stderr);
try {
  await main();
} catch (error) {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
