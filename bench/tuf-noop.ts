/**
 * The no-op check under TUF at 10,000 targets (docs/UPDATER.md §3, No-op runs): a TUF
 * repository of COUNT small targets on a loopback server, a state directory that installed
 * them from a trusted root, then ROUNDS of `check` and `update` that find nothing new. Each
 * run moves two requests (`N+1.root.json`: 404, `timestamp.json`: unchanged) and no body past
 * them. The budget is 0.3 s per run in process (the CLI adds node's start-up).
 *
 *   npx tsx bench/tuf-noop.ts   (COUNT=10000, ROUNDS=5)
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeUpdater } from '#node/create-updater.js';
import { generateKeyPair, nativeSigner, tuf } from '#protocol';
import { envInt, percentiles, printTable } from './updater-kit.js';

const COUNT = envInt('COUNT', 10_000);
const ROUNDS = envInt('ROUNDS', 5);
const DAY_MS = 86_400_000;

function signer(): tuf.TufSigner {
  const { secretKey, publicKey } = generateKeyPair();
  return { publicHex: Buffer.from(publicKey).toString('hex'), sign: nativeSigner(secretKey) };
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Every file of the repository by its URL path under /api/updates/tuf/. */
function buildRepository(nowMs: number): Map<string, Uint8Array> {
  const [root, targets, online] = [signer(), signer(), signer()];
  const role = (s: tuf.TufSigner) => ({ keys: [s.publicHex], threshold: 1 });
  const common = (version: number, days: number) => ({ version, expiresMs: nowMs + days * DAY_MS });
  const files = new Map<string, Uint8Array>();
  const specs: tuf.TargetSpec[] = [];
  for (let i = 0; i < COUNT; i++) {
    const path = `d${String(i % 100).padStart(2, '0')}/f${String(i).padStart(5, '0')}.bin`;
    const content = new TextEncoder().encode(`target ${i}\n`);
    const hash = sha256(content);
    specs.push({ path, length: content.length, sha256: hash });
    const slash = path.lastIndexOf('/');
    files.set(`targets/${path.slice(0, slash)}/${hash}.${path.slice(slash + 1)}`, content);
  }
  const rootBytes = tuf.signMetadata(
    tuf.buildRoot({
      ...common(1, 365),
      root: role(root),
      targets: role(targets),
      snapshot: role(online),
      timestamp: role(online),
    }),
    [root],
  );
  const targetsBytes = tuf.signMetadata(
    tuf.buildTargets({ ...common(1, 90), custom: { registry_version: '1.0.0' } }, specs),
    [targets],
  );
  const snapshotBytes = tuf.signMetadata(tuf.buildSnapshot(common(1, 7), 1), [online]);
  const timestampBytes = tuf.signMetadata(
    tuf.buildTimestamp(common(1, 1), {
      version: 1,
      length: snapshotBytes.length,
      sha256: sha256(snapshotBytes),
    }),
    [online],
  );
  files.set('1.root.json', rootBytes);
  files.set('1.targets.json', targetsBytes);
  files.set('1.snapshot.json', snapshotBytes);
  files.set('timestamp.json', timestampBytes);
  return files;
}

async function main(): Promise<void> {
  const nowMs = Date.now();
  const files = buildRepository(nowMs);
  const rootBytes = files.get('1.root.json') ?? new Uint8Array();
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/').replace(
      /^\/api\/updates\/tuf\//,
      '',
    );
    requests.push(path);
    if (process.env.TRACE === '1') console.log('GET', path);
    const body = files.get(path);
    res.writeHead(body === undefined ? 404 : 200, { 'content-length': String(body?.length ?? 0) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const dir = await mkdtemp(join(tmpdir(), 'bench-tuf-noop-'));
  const options = {
    baseUrl,
    machineKey: 'bench',
    pubkeys: [],
    dir,
    limits: { maxArtifacts: COUNT },
  };
  try {
    const first = await createNodeUpdater({ ...options, trustedRoot: rootBytes });
    const t0 = performance.now();
    await first.update();
    const installMs = performance.now() - t0;
    await first.close();
    const check: number[] = [];
    const update: number[] = [];
    let noopRequests = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [samples, run] of [
        [check, (u: Awaited<ReturnType<typeof createNodeUpdater>>) => u.check()],
        [update, (u: Awaited<ReturnType<typeof createNodeUpdater>>) => u.update()],
      ] as const) {
        const updater = await createNodeUpdater(options);
        requests.length = 0;
        const start = performance.now();
        await run(updater);
        samples.push(performance.now() - start);
        noopRequests = requests.length;
        await updater.close();
      }
    }
    const ms = (v: number): string => `${v.toFixed(1)} ms`;
    const c = percentiles(check);
    const u = percentiles(update);
    printTable(`TUF no-op at ${COUNT} targets (${ROUNDS} rounds, in process)`, [
      ['first install', ms(installMs)],
      ['check: median / max', `${ms(c.median)} / ${ms(c.max)}`],
      ['update: median / max', `${ms(u.median)} / ${ms(u.max)}`],
      ['requests per no-op run', String(noopRequests)],
      ['budget', '300 ms'],
    ]);
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
