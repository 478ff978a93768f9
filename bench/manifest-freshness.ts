/**
 * GET /api/updates/manifest with format 2 freshness (docs/PROTOCOL.md §2.7.6), with and without
 * a nonce, against plain node:http serving the same answer bytes, in one run (autocannon, 10
 * connections, interleaved rounds, medians). A nonce answer is signed per request, so its cost
 * is one Ed25519 signature plus a concatenation; the in-process cost of that is timed too.
 * Run: npx tsx bench/manifest-freshness.ts [seconds per round, default 3] [rounds, default 5]
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server/src/start-server.js';
import { FreshnessSigner } from '../server/src/updates/freshness-signer.js';
import {
  generateKeyPair,
  keyIdOf,
  nativeSigner,
  publicKeyOf,
  seedSigner,
} from '../src/protocol/index.js';
import { loadTest } from './load-worker.js';

const SECONDS = Number(process.argv[2] ?? 3);
const ROUNDS = Number(process.argv[3] ?? 5);
// autocannon sends the same URL every time; the server signs every nonce request anyway
// (nonce answers are never cached), so one fixed nonce costs what fresh ones would.
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
  const text = (s: string) => new TextEncoder().encode(s);
  await server.publish({
    registry_version: '1.0.0',
    artifacts: [
      { name: 'app/main.js', content: text('console.log("main")') },
      { name: 'app/lib.js', content: text('export const x = 1;') },
      { name: 'README.txt', content: text('hello') },
    ],
  });
  const key = (await server.updates.mintMachineKey()).machine_key;
  const auth = { authorization: `Bearer ${key}` };
  const res = await fetch(`${server.url}/api/updates/manifest`, { headers: auth });
  const bytes = Buffer.from(await res.arrayBuffer());
  const baseline = createServer((_req, reply) => {
    reply.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    reply.end(bytes);
  });
  const plainUrl = await listen(baseline);
  try {
    const urls = {
      'no nonce': [`${server.url}/api/updates/manifest`, auth],
      nonce: [`${server.url}/api/updates/manifest?nonce=${NONCE}`, auth],
      'node:http': [`${plainUrl}/manifest`, {}],
    } as const;
    const rates: Record<keyof typeof urls, number[]> = {
      'no nonce': [],
      nonce: [],
      'node:http': [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(urls) as (keyof typeof urls)[]) {
        const [url, headers] = urls[name];
        const r = await loadTest(url, SECONDS, headers);
        if (r.non2xx > 0 || r.errors !== 0) throw new Error(`${name}: ${r.non2xx} non-2xx`);
        rates[name].push(r.average);
      }
    }
    const peer = median(rates['node:http']);
    console.log(`answer: ${bytes.length} bytes; ${ROUNDS} interleaved rounds of ${SECONDS} s`);
    for (const name of Object.keys(urls) as (keyof typeof urls)[]) {
      const m = median(rates[name]);
      console.log(
        `${name.padEnd(10)} ${m.toFixed(0).padStart(7)} req/s  ratio to node:http ${(m / peer).toFixed(2)}x`,
      );
    }
    // The signing cost alone, in-process: one nonce statement (native and portable Ed25519).
    const dir = await mkdtemp(join(tmpdir(), 'bench-freshness-'));
    try {
      const { secretKey } = generateKeyPair();
      for (const [name, signer] of [
        [
          'native',
          {
            publicKey: publicKeyOf(secretKey),
            keyid: keyIdOf(publicKeyOf(secretKey)),
            sign: nativeSigner(secretKey),
          },
        ],
        ['portable', seedSigner(secretKey)],
      ] as const) {
        const freshness = await FreshnessSigner.open(dir, [signer], () => Date.now());
        const base = await freshness.current({ releaseSha256: 'a'.repeat(64), keysVersion: 1 });
        const n = 2000;
        const start = performance.now();
        for (let i = 0; i < n; i++) freshness.withNonce(base, NONCE);
        const us = ((performance.now() - start) / n) * 1000;
        console.log(`nonce statement signing (${name}): ${us.toFixed(0)} us each`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  } finally {
    baseline.close();
    await server.close();
  }
}

await main();
