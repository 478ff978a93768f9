/**
 * Benchmark of the update path (docs/SERVER.md). Run: npx tsx bench/server-update-path.ts [seconds, default 2] [MiB, default 256]
 *  1. GET /api/updates/manifest and GET /api/updates/artifacts/:sha256 (64 KiB blob) on the real
 *     server (startServer, logs silent) vs a plain node:http server serving the same bytes (the
 *     manifest from memory, the blob streamed from the same file), autocannon, same run;
 *  2. download throughput of a large artifact (256 MiB, generated in a temp dir) with curl, from
 *     our server vs plain node:http streaming the same file, plus curl reading file:// as the
 *     disk ceiling.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { startServer } from '#server/compose/start-server.js';
import { loadTest } from './load-worker.js';

const SECONDS = Number(process.argv[2] ?? 2);
const BIG_MIB = Number(process.argv[3] ?? 256);
const ROUNDS = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function writeRandomFile(path: string, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  const block = createHash('sha512');
  let seed = block.update('bench').digest();
  for (let written = 0; written < bytes;) {
    // 1 MiB of cheap pseudo-random bytes (hash-chained seed repeated with an offset).
    const chunk = Buffer.alloc(Math.min(1 << 20, bytes - written));
    for (let i = 0; i < chunk.length; i += seed.length) seed.copy(chunk, i);
    seed = createHash('sha512').update(seed).digest();
    written += chunk.length;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((e?: Error | null) => (e ? reject(e) : resolve())),
  );
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

// Async: the servers live in this process, so blocking on curl would starve them.
async function curlSpeed(url: string, headers: string[] = []): Promise<number> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{speed_download} %{http_code} %{size_download}'];
  for (const h of headers) args.push('-H', h);
  const [speed, code, size] = (
    await promisify(execFile)('curl', [...args, url], { encoding: 'utf8' })
  ).stdout.split(' ');
  if (code !== '200' && code !== '000') throw new Error(`curl got ${code}`);
  if (Number(size) === 0) throw new Error('curl downloaded nothing');
  return Number(speed) / (1024 * 1024); // MiB/s
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-update-path-'));
  const server = await startServer({ simulate: false, logLevel: 'silent' });
  const plain: Server[] = [];
  try {
    const small = join(dir, 'small.bin');
    const big = join(dir, 'big.bin');
    await writeRandomFile(small, 64 * 1024);
    await writeRandomFile(big, BIG_MIB * 1024 * 1024);
    const release = await server.publish({
      registry_version: '1.0.0',
      artifacts: [
        { name: 'big.bin', path: big },
        { name: 'small.bin', path: small },
      ],
    });
    const [bigArt, smallArt] = release.artifacts;
    if (bigArt === undefined || smallArt === undefined) throw new Error('publish failed');
    const key = (await server.updates.mintMachineKey()).machine_key;
    const auth = { authorization: `Bearer ${key}` };
    // The exact answer bytes the server sends (docs/PROTOCOL.md §2.7.6), for the baseline.
    const answer = await fetch(`${server.url}/api/updates/manifest`, { headers: auth });
    const envelope = Buffer.from(await answer.arrayBuffer());
    const smallSize = (await stat(small)).size;
    const bigSize = (await stat(big)).size;

    // The plain baseline: same bytes, same headers' weight, no framework.
    const baseline = createServer((req, res) => {
      if (req.url === '/manifest') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(envelope);
        return;
      }
      const path = req.url === '/small' ? small : big;
      const size = req.url === '/small' ? smallSize : bigSize;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
      createReadStream(path, { highWaterMark: 256 * 1024 }).pipe(res);
    });
    plain.push(baseline);
    const plainUrl = await listen(baseline);

    // The framework floor: bare Fastify serving the same manifest bytes, no auth, no hooks.
    const bare = Fastify();
    bare.get('/manifest', (_req, reply) =>
      reply.header('cache-control', 'no-store').type('application/json').send(envelope),
    );
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}`;

    // Rounds alternate ours and theirs; medians smooth out a shared, noisy machine.
    const rows: [string, number[], number[]][] = [];
    for (const [name, ours, theirs, headers] of [
      ['manifest', `${server.url}/api/updates/manifest`, `${plainUrl}/manifest`, auth],
      [
        'artifact 64 KiB',
        `${server.url}/api/updates/artifacts/${smallArt.sha256}`,
        `${plainUrl}/small`,
        auth,
      ],
      ['bare fastify', `${bareUrl}/manifest`, `${plainUrl}/manifest`, {}],
    ] as const) {
      const a: number[] = [];
      const b: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const x = await loadTest(ours, SECONDS, headers);
        const y = await loadTest(theirs, SECONDS, {});
        if (x.non2xx > 0 || x.errors !== 0) throw new Error(`${name}: ${x.non2xx} non-2xx`);
        a.push(x.average);
        b.push(y.average);
      }
      rows.push([name, a, b]);
    }
    await bare.close();
    for (const [name, a, b] of rows) {
      const ma = median(a);
      const mb = median(b);
      console.log(
        `${name.padEnd(16)} server ${ma.toFixed(0).padStart(6)} req/s  node:http ${mb.toFixed(0).padStart(6)} req/s` +
          `  ratio ${(ma / mb).toFixed(2)}x  (median of ${ROUNDS} x ${SECONDS} s)`,
      );
    }

    // Memory stays flat while a large blob streams: sample RSS during the download.
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 10);
    const oursMiB = await curlSpeed(`${server.url}/api/updates/artifacts/${bigArt.sha256}`, [
      `Authorization: Bearer ${key}`,
    ]);
    clearInterval(sampler);
    const plainMiB = await curlSpeed(`${plainUrl}/big`);
    const diskMiB = await curlSpeed(`file://${big}`);
    console.log(
      `artifact ${BIG_MIB} MiB via curl: server ${oursMiB.toFixed(0)} MiB/s, node:http ${plainMiB.toFixed(0)} MiB/s ` +
        `(ratio ${(oursMiB / plainMiB).toFixed(2)}x), file:// ${diskMiB.toFixed(0)} MiB/s (ratio ${(oursMiB / diskMiB).toFixed(2)}x)`,
    );
    console.log(
      `rss during the ${BIG_MIB} MiB download: ${(rssBefore / 1048576).toFixed(0)} -> peak ` +
        `${(rssPeak / 1048576).toFixed(0)} MiB (+${((rssPeak - rssBefore) / 1048576).toFixed(0)} MiB)`,
    );
  } finally {
    for (const s of plain) s.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
