/**
 * Pull throughput and peak RSS on one large artifact (default 512 MiB), served by a real nginx
 * on loopback, against `curl` + `sha256sum` from the same server. The manifest is signed by the
 * hostile test server and points at nginx with an absolute URL.
 * Targets: >= 0.9x curl; client peak RSS < 100 MB.
 *
 *   npx tsx bench/updater-throughput.ts      (BENCH_SIZE_MIB=512)
 */
import { spawn } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, launcherOf } from '../scripts/build-cli.mjs';
import { createNodeUpdater } from '#node/create-updater.js';
import { startHostileServer } from '#test/hostile-server.js';
import { startNginx } from '#test/nginx.js';
import {
  CLI_ENTRY,
  envInt,
  mib,
  MiB,
  mibPerS,
  printTable,
  runMeasured,
  writeRandomFile,
} from './updater-kit.js';

const SIZE = envInt('BENCH_SIZE_MIB', 512) * MiB;
const ROUNDS = envInt('BENCH_ROUNDS', 3);

function freeBytes(path: string): number {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

function sh(script: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${script}: ${code}`)),
    );
  });
}

const needed = 4 * SIZE + 256 * MiB;
if (freeBytes(tmpdir()) < needed) {
  throw new Error(`need ${mib(needed)} free under ${tmpdir()}, have ${mib(freeBytes(tmpdir()))}`);
}

const work = await mkdtemp(join(tmpdir(), 'bench-throughput-'));
const root = join(work, 'www');
const nginx = await (async () => {
  await import('node:fs/promises').then((fs) => fs.mkdir(root));
  await writeRandomFile(join(root, 'big.bin'), SIZE);
  return startNginx(root);
})();
const server = await startHostileServer();
try {
  await server.publish({
    version: '1.0.0',
    files: [{ name: 'big.bin', content: { path: join(root, 'big.bin') } }],
    urlFor: () => `${nginx.baseUrl}/big.bin`,
  });
  const url = `${nginx.baseUrl}/big.bin`;
  const out = join(work, 'curl.out');

  // Warm-up (page cache), then ROUNDS interleaved rounds so load from other processes hits
  // both sides alike; the best of each is compared (the least disturbed run).
  await sh(`curl -sS -o /dev/null '${url}'`);
  const curlFiles: number[] = [];
  const curlPipes: number[] = [];
  const clients: number[] = [];
  let result = { bytesDownloaded: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    curlFiles.push(await sh(`curl -sS -o '${out}' '${url}' && sha256sum '${out}' >/dev/null`));
    await rm(out, { force: true });
    curlPipes.push(await sh(`curl -sS '${url}' | sha256sum >/dev/null`));
    // The client in-process (no process start-up in the figure).
    const dirA = join(work, 'client-a');
    const started = performance.now();
    const u = await createNodeUpdater({
      baseUrl: server.baseUrl,
      machineKey: server.machineKey,
      pubkeys: [server.pubkeyHex],
      dir: dirA,
      limits: { maxArtifactBytes: SIZE },
    });
    result = await u.update();
    await u.close();
    clients.push(performance.now() - started);
    await rm(dirA, { recursive: true, force: true });
  }
  const curlFile = Math.min(...curlFiles);
  const curlPipe = Math.min(...curlPipes);
  const inProcessMs = Math.min(...clients);
  const spread = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(', ');

  // The CLI as a child under /usr/bin/time -v: wall time and peak RSS.
  const dirB = join(work, 'client-b');
  const cli = await runMeasured(
    process.execPath,
    [
      '--import',
      'tsx',
      CLI_ENTRY,
      'update',
      ...['--base-url', server.baseUrl, '--pubkey', server.pubkeyHex, '--dir', dirB, '--json'],
      ...['--max-artifact-bytes', String(SIZE)],
    ],
    { env: { UPDATER_MACHINE_KEY: server.machineKey } },
  );
  if (cli.code !== 0) throw new Error(`CLI failed: ${cli.stdout} ${cli.stderr.slice(0, 2000)}`);
  await rm(dirB, { recursive: true, force: true });

  // The same CLI bundled by esbuild and run by plain node, as it would ship (no tsx in memory).
  const bundle = launcherOf(await buildCli({ outfile: join(work, 'updater-cli.mjs') }));
  const dirC = join(work, 'client-c');
  const args = ['update', '--base-url', server.baseUrl, '--pubkey', server.pubkeyHex, '--json'];
  const bundled = await runMeasured(
    process.execPath,
    [bundle, ...args, '--dir', dirC, '--max-artifact-bytes', String(SIZE)],
    { env: { UPDATER_MACHINE_KEY: server.machineKey } },
  );
  if (bundled.code !== 0) throw new Error(`bundled CLI failed: ${bundled.stderr.slice(0, 2000)}`);
  await rm(dirC, { recursive: true, force: true });
  const idle = await runMeasured(process.execPath, [
    bundle,
    'status',
    '--pubkey',
    server.pubkeyHex,
    '--dir',
    dirC,
    '--json',
  ]);
  await rm(dirC, { recursive: true, force: true });

  const best = Math.min(curlFile, curlPipe);
  printTable(
    `pull throughput, one ${mib(SIZE)} artifact from nginx on loopback (target >= 0.9x curl)`,
    [
      [`runs (ms): curl -o && sha256sum`, spread(curlFiles)],
      [`runs (ms): curl | sha256sum`, spread(curlPipes)],
      [`runs (ms): updater in-process`, spread(clients)],
      [
        `best of ${ROUNDS}: curl -o file && sha256sum file`,
        `${curlFile.toFixed(0)} ms  ${mibPerS(SIZE, curlFile)}`,
      ],
      [
        `best of ${ROUNDS}: curl | sha256sum (no disk)`,
        `${curlPipe.toFixed(0)} ms  ${mibPerS(SIZE, curlPipe)}`,
      ],
      [
        `best of ${ROUNDS}: updater in-process update()`,
        `${inProcessMs.toFixed(0)} ms  ${mibPerS(SIZE, inProcessMs)}`,
      ],
      [
        'updater CLI child (incl. start-up)',
        `${cli.wallMs.toFixed(0)} ms  ${mibPerS(SIZE, cli.wallMs)}`,
      ],
      ['in-process vs curl -o && sha256sum', `${(curlFile / inProcessMs).toFixed(2)}x`],
      ['in-process vs faster curl baseline', `${(best / inProcessMs).toFixed(2)}x`],
      ['CLI vs curl -o && sha256sum', `${(curlFile / cli.wallMs).toFixed(2)}x`],
      ['client bytes_downloaded', String(result.bytesDownloaded)],
      [
        'tsx CLI peak RSS (/usr/bin/time -v)',
        cli.peakRssBytes === undefined ? 'n/a' : mib(cli.peakRssBytes),
      ],
      [
        'bundled CLI (node, no tsx) wall time',
        `${bundled.wallMs.toFixed(0)} ms  ${mibPerS(SIZE, bundled.wallMs)}`,
      ],
      ['bundled CLI vs curl -o && sha256sum', `${(curlFile / bundled.wallMs).toFixed(2)}x`],
      [
        'bundled CLI peak RSS during update',
        bundled.peakRssBytes === undefined ? 'n/a' : mib(bundled.peakRssBytes),
      ],
      [
        'bundled CLI peak RSS of `status` (idle)',
        idle.peakRssBytes === undefined ? 'n/a' : mib(idle.peakRssBytes),
      ],
      [
        'RSS target met (< 100 MB), tsx CLI',
        cli.peakRssBytes !== undefined && cli.peakRssBytes < 100e6 ? 'yes' : 'no',
      ],
      [
        'RSS target met (< 100 MB), bundled CLI',
        bundled.peakRssBytes !== undefined && bundled.peakRssBytes < 100e6 ? 'yes' : 'no',
      ],
      ['throughput target met (>= 0.9x)', curlFile / inProcessMs >= 0.9 ? 'yes' : 'no'],
    ],
  );
} finally {
  await server.close();
  await nginx.stop();
  await rm(work, { recursive: true, force: true });
}
