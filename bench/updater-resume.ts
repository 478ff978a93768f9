/**
 * Bytes re-fetched after an interrupted pull: the CLI is killed (SIGKILL) mid-download, then
 * run again; the server counts what it serves the second time. Re-fetched = bytes served in
 * run 2 minus the remainder (size minus the bytes served in run 1). Target: <= 1 MiB.
 * Two interruptions: (a) the transfer hangs half-way and the user kills the client (all bytes
 * sent were received); (b) the client is killed while bytes are flowing (kernel socket buffers
 * hold bytes the server counted but the client never read, so this is an upper bound).
 *
 *   npx tsx bench/updater-resume.ts          (BENCH_SIZE_MIB=256)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createNodeUpdater } from '#node/create-updater.js';
import { startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { CLI_ENTRY, envInt, mib, MiB, printTable, writeRandomFile } from './updater-kit.js';

const SIZE = envInt('BENCH_SIZE_MIB', 256) * MiB;
const POLL_MS = 5;
const MAX_POLLS = 12_000;

async function partialBytes(dir: string): Promise<number> {
  const partial = join(dir, '.updater', 'partial');
  let total = 0;
  for (const name of await readdir(partial).catch(() => [])) {
    if (name.endsWith('.part')) total += (await stat(join(partial, name))).size;
  }
  return total;
}

/** Starts the CLI, kills it with SIGKILL once the server has served `killAt` bytes. */
async function killMidway(server: HostileServer, dir: string, killAt: number, settleMs: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CLI_ENTRY,
      'update',
      ...['--base-url', server.baseUrl, '--pubkey', server.pubkeyHex, '--dir', dir, '--json'],
      ...['--max-artifact-bytes', String(SIZE), '--stall-timeout-ms', '60000'],
    ],
    { env: { ...process.env, UPDATER_MACHINE_KEY: server.machineKey }, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < MAX_POLLS && server.bytesServed() < killAt; i++) await sleep(POLL_MS);
  await sleep(settleMs);
  child.kill('SIGKILL');
  await exited;
}

async function scenario(
  server: HostileServer,
  work: string,
  label: string,
  hang: boolean,
): Promise<(readonly [string, string])[]> {
  const dir = join(work, label);
  server.resetCounters();
  if (hang)
    server.setArtifactAttack('big.bin', { kind: 'stall', afterBytes: SIZE / 2, holdMs: 60_000 });
  await killMidway(server, dir, SIZE / 2, hang ? 1_000 : 0);
  server.setArtifactAttack('big.bin', undefined);
  const firstRun = server.bytesServed();
  const durable = await partialBytes(dir);
  server.resetCounters();

  const u = await createNodeUpdater({
    baseUrl: server.baseUrl,
    machineKey: server.machineKey,
    pubkeys: [server.pubkeyHex],
    dir,
    limits: { maxArtifactBytes: SIZE },
  });
  const outcome = (await u.update()).outcome;
  await u.close();
  const secondRun = server.bytesServed();
  const range = server.artifactRequests[0]?.range ?? '(none)';
  const refetched = secondRun - (SIZE - firstRun);
  await rm(dir, { recursive: true, force: true });
  return [
    [`${label}: served before the kill`, `${firstRun} (${mib(firstRun)})`],
    [`${label}: partial file on disk after the kill`, `${durable} (${mib(durable)})`],
    [`${label}: second run Range`, range],
    [`${label}: served in the second run`, `${secondRun} (${mib(secondRun)})`],
    [`${label}: re-fetched (served2 - remainder)`, `${refetched} (${mib(refetched)})`],
    [`${label}: outcome / target <= 1 MiB met`, `${outcome} / ${refetched <= MiB ? 'yes' : 'no'}`],
  ];
}

const work = await mkdtemp(join(tmpdir(), 'bench-resume-'));
const server = await startHostileServer();
try {
  const file = join(work, 'big.bin');
  await writeRandomFile(file, SIZE);
  await server.publish({ version: '1.0.0', files: [{ name: 'big.bin', content: { path: file } }] });
  const rows = [
    ...(await scenario(server, work, '(a) hang then kill', true)),
    ...(await scenario(server, work, '(b) kill while flowing', false)),
  ];
  printTable(`bytes re-fetched after an interrupted pull of ${mib(SIZE)}`, rows);
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}
