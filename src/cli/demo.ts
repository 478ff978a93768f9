/**
 * `npm run demo`: starts the companion server in-process with a demo release, mints a
 * machine key, installs with the updater, publishes a second release that changes one
 * artifact, updates again and shows that only the changed bytes moved. Leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '#server/compose/start-server.js';
import type { UpdaterApi } from '#core/updater-api.js';
import { createNodeUpdater } from '#node/create-updater.js';
import { outliveReader, watchOutput } from './broken-pipe.js';
import { INTERRUPT_SIGNALS, interruptExitCode } from './interrupt-signals.js';
import { formatBytes } from './progress-bar.js';

const ARTIFACTS = 20;
const ARTIFACT_BYTES = 256 * 1024;

/** Prints the outcome of a step; a signal that came during the step stops the run here. */
function say(line: string): void {
  checkpoint();
  process.stdout.write(`${line}\n`);
}

/**
 * Ctrl-C, SIGTERM or SIGHUP (interrupt-signals.ts): the run in flight is cut short (the updater
 * closed), then, as at a normal end, what the demo made is removed: killed mid-run it left its
 * state directory and the server's temporary data directory behind. A second signal exits.
 */
let stoppedBy: string | undefined;
let updater: UpdaterApi | undefined;
let closing: Promise<void> | undefined;
/** One close for the signal and the end of the run alike. */
const closeUpdater = (): Promise<void> => (closing ??= updater?.close() ?? Promise.resolve());
class Stopped extends Error {}
/** Called after each step (`say`): a signal stops the run there. */
function checkpoint(): void {
  if (stoppedBy !== undefined) throw new Stopped(`stopped by ${stoppedBy}`);
}
for (const signal of INTERRUPT_SIGNALS) {
  process.on(signal, () => {
    if (stoppedBy !== undefined) process.exit(interruptExitCode(signal));
    stoppedBy = signal;
    if (updater !== undefined) void closeUpdater().catch(() => undefined);
  });
}

/**
 * Mints a machine key and takes the trusted root: root 1 of the server's TUF repository
 * (docs/PROTOCOL.md §TUF repository, "Client"), from its own dev server as a distributor
 * would ship it.
 */
async function enrol(url: string): Promise<{ machineKey: string; trustedRoot: Uint8Array }> {
  const minted = await fetch(`${url}/api/demo-key/mint`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const { machine_key: machineKey } = (await minted.json()) as { machine_key: string };
  const root = await fetch(`${url}/api/updates/tuf/1.root.json`, {
    headers: { authorization: `Bearer ${machineKey}` },
  });
  if (root.status !== 200) throw new Error(`root 1: HTTP ${root.status}`);
  return { machineKey, trustedRoot: new Uint8Array(await root.arrayBuffer()) };
}

async function main(): Promise<void> {
  const server = await startServer({ dev: true, port: 0, host: '127.0.0.1' });
  let dir: string | undefined;
  try {
    dir = await mkdtemp(join(tmpdir(), 'updater-demo-'));
    const files = Array.from({ length: ARTIFACTS }, (_, i) => ({
      name: `app/part-${String(i).padStart(2, '0')}.bin`,
      content: new Uint8Array(randomBytes(ARTIFACT_BYTES)),
    }));
    await server.publish({ registry_version: '1.0.0', artifacts: files });
    say(`server ${server.url}, node_pubkey ${server.nodePubkey}`);
    const { machineKey, trustedRoot } = await enrol(server.url);
    say(`minted a machine key; state directory ${dir}`);
    say('trust starts from the TUF root 1 of the server');

    updater = await createNodeUpdater({
      baseUrl: server.url,
      machineKey,
      pubkeys: [],
      trustedRoot,
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
    await closeUpdater();
    await server.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

// `npm run demo | head -3` still removes what it made; `npm run demo > /dev/full` does too, says
// so on stderr and exits 74 (broken-pipe.ts).
const output = watchOutput(process.stdout, 'stdout', (line) => process.stderr.write(line));
outliveReader(process.stderr);
let code = 0;
try {
  await main();
  checkpoint();
} catch (error) {
  if (stoppedBy !== undefined) {
    process.stderr.write('interrupted: the demo removed what it made\n');
    code = interruptExitCode(stoppedBy);
  } else {
    process.stderr.write(
      `demo failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    code = 1;
  }
}
process.exitCode = await output.exitCode(code);
