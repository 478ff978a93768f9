/**
 * CPU cost per request, robust on a shared machine (throughput figures swing with the load of
 * other processes; CPU time per request does not). Run: npx tsx bench/server-cpu-per-request.ts [requests, default 20000]
 * The real server (CLI, --log-level silent) and a plain node:http server serving the same
 * manifest bytes and the same 64 KiB blob each run in their own process; autocannon sends N
 * requests; utime+stime of the server process come from /proc/PID/stat (Linux only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';

const N = Number(process.argv[2] ?? 20_000);
const TICK_MS = 10; // USER_HZ = 100 on Linux

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require('autocannon');
autocannon(workerData).then((r) => parentPort.postMessage({ done: r.totalCompletedRequests, non2xx: r.non2xx }));
`;

function hammer(
  url: string,
  headers: Record<string, string>,
): Promise<{ done: number; non2xx: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: { url, connections: 10, amount: N, headers },
    });
    w.once('message', (m: { done: number; non2xx: number }) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

// The plain baseline, as small as it gets: bytes from memory, the blob streamed from disk.
const PLAIN = `
const { createServer } = require('node:http');
const { createReadStream, readFileSync, statSync } = require('node:fs');
const envelope = readFileSync(process.env.ENVELOPE);
const size = statSync(process.env.BLOB).size;
const server = createServer((req, res) => {
  if (req.url === '/manifest') {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(envelope);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
  createReadStream(process.env.BLOB).pipe(res);
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port })));
`;

async function firstLine(child: ChildProcess): Promise<string> {
  if (child.stdout === null) throw new Error('no stdout');
  const rl = createInterface({ input: child.stdout });
  const line = await new Promise<string>((resolve) => rl.once('line', resolve));
  rl.close();
  return (JSON.parse(line) as { url: string }).url;
}

async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function measure(pid: number, url: string, headers: Record<string, string>): Promise<number> {
  await hammer(url, headers); // warm-up (JIT)
  const before = await cpuMs(pid);
  const { done, non2xx } = await hammer(url, headers);
  const after = await cpuMs(pid);
  if (non2xx > 0) throw new Error(`${url}: ${non2xx} non-2xx answers`);
  return ((after - before) * 1000) / done; // microseconds per request
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-cpu-'));
  const children: ChildProcess[] = [];
  try {
    const server = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'server/src/cli/main.ts',
        '--port',
        '0',
        '--dev',
        '--log-level',
        'silent',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(server);
    const url = await firstLine(server);
    const blob = randomBytes(64 * 1024);
    const published = await fetch(`${url}/api/dev/releases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        registry_version: '1.0.0',
        artifacts: [{ name: 'small.bin', content_base64: blob.toString('base64') }],
      }),
    });
    const sha = ((await published.json()) as { artifacts: { sha256: string }[] }).artifacts[0]
      ?.sha256;
    const minted = await fetch(`${url}/api/demo-key/mint`, { method: 'POST' });
    const key = ((await minted.json()) as { machine_key: string }).machine_key;
    const auth = { authorization: `Bearer ${key}` };
    const envelope = Buffer.from(
      await (await fetch(`${url}/api/updates/manifest`, { headers: auth })).arrayBuffer(),
    );
    await writeFile(join(dir, 'envelope.json'), envelope);
    await writeFile(join(dir, 'blob.bin'), blob);

    const plain = spawn(process.execPath, ['-e', PLAIN], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ENVELOPE: join(dir, 'envelope.json'), BLOB: join(dir, 'blob.bin') },
    });
    children.push(plain);
    const plainUrl = await firstLine(plain);
    const serverPid = server.pid ?? 0;
    const plainPid = plain.pid ?? 0;

    for (const [name, ours, theirs] of [
      ['manifest', `${url}/api/updates/manifest`, `${plainUrl}/manifest`],
      ['artifact 64 KiB', `${url}/api/updates/artifacts/${sha ?? ''}`, `${plainUrl}/blob`],
    ] as const) {
      const a = await measure(serverPid, ours, auth);
      const b = await measure(plainPid, theirs, {});
      console.log(
        `${name.padEnd(16)} server ${a.toFixed(1).padStart(6)} us CPU/request  node:http ${b
          .toFixed(1)
          .padStart(6)} us  efficiency ${(b / a).toFixed(2)}x  (${N} requests)`,
      );
    }
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
