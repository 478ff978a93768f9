/**
 * GET /api/updates/manifest?format=tuf (docs/PROTOCOL.md §TUF repository, One request and
 * Nonce) with and without a nonce, against the format 2 answer of the same route and plain
 * node:http serving the same bundle bytes, in one run (autocannon, 10 connections, interleaved
 * rounds, medians). A nonce bundle costs one Ed25519 signature over the timestamp and one
 * encoding of the body; without a nonce the body is kept whole between requests.
 * Run: npx tsx bench/tuf-bundle-nonce.ts [seconds per round, default 3] [rounds, default 3]
 * [artifacts, default 3]
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '#server/compose/start-server.js';
import { loadTest } from './load-worker.js';

const SECONDS = Number(process.argv[2] ?? 3);
const ROUNDS = Number(process.argv[3] ?? 3);
const ARTIFACTS = Number(process.argv[4] ?? 3);
// autocannon sends the same URL every time; a nonce answer is signed on every request anyway.
const NONCE = 'bench-nonce-0123456789';

const median = (values: readonly number[]): number =>
  [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

async function main(): Promise<void> {
  const server = await startServer({ simulate: false, logLevel: 'silent' });
  const artifacts = Array.from({ length: ARTIFACTS }, (_, i) => ({
    name: `app/file-${i}.js`,
    content: new TextEncoder().encode(`export const n = ${i};\n`),
  }));
  await server.publish({ registry_version: '1.0.0', artifacts });
  const key = (await server.updates.mintMachineKey()).machine_key;
  const auth = { authorization: `Bearer ${key}` };
  const bundleUrl = `${server.url}/api/updates/manifest?format=tuf`;
  const bytes = Buffer.from(await (await fetch(bundleUrl, { headers: auth })).arrayBuffer());
  const baseline = createServer((_req, reply) => {
    reply.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    reply.end(bytes);
  });
  const plainUrl = await listen(baseline);
  try {
    const urls = {
      'bundle, no nonce': [bundleUrl, auth],
      'bundle, nonce': [`${bundleUrl}&nonce=${NONCE}`, auth],
      'format 2, no nonce': [`${server.url}/api/updates/manifest`, auth],
      'node:http': [`${plainUrl}/bundle`, {}],
    } as const;
    type Name = keyof typeof urls;
    const names = Object.keys(urls) as Name[];
    const rates = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<
      Name,
      number[]
    >;
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 === 0 ? names : [...names].reverse()) {
        const [url, headers] = urls[name];
        const r = await loadTest(url, SECONDS, headers);
        if (r.non2xx > 0 || r.errors !== 0) throw new Error(`${name}: ${r.non2xx} non-2xx`);
        rates[name].push(r.average);
      }
    }
    const peer = median(rates['node:http']);
    const plain = median(rates['bundle, no nonce']);
    console.log(
      `bundle: ${bytes.length} bytes, ${ARTIFACTS} artifacts; ${ROUNDS} interleaved rounds of ${SECONDS} s`,
    );
    for (const name of names) {
      const m = median(rates[name]);
      console.log(
        `${name.padEnd(20)} ${m.toFixed(0).padStart(7)} req/s  vs node:http ${(m / peer).toFixed(2)}x  vs bundle without nonce ${(m / plain).toFixed(2)}x`,
      );
    }
  } finally {
    baseline.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
