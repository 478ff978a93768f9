/**
 * GET /api/updates/manifest with format 2 freshness (docs/PROTOCOL.md §2.7.6), with and without
 * a nonce, against plain node:http serving the same answer bytes, in one run (autocannon, 10
 * connections, interleaved rounds, medians). A nonce answer is signed per request, so its cost
 * is one Ed25519 signature plus a concatenation; the in-process cost of that is timed too.
 * Then the client side (docs/PROTOCOL.md §2.7.5): `verifyAnswer` of a format 2 answer whose
 * release role has 16 keys and threshold 3, first contact (key set 1 walked from the pinned
 * key: its link is verified when the walk picks its start and again in the walk, then 3
 * release and 1 freshness signatures) and trusted (no new link: 3 + 1), against a format 1
 * envelope of the same artifacts verified in the same run (median of many runs each).
 * Run: npx tsx bench/manifest-freshness.ts [seconds per round, default 3] [rounds, default 5]
 * (env VERIFY_ONLY=1: the client part alone; VERIFY_RUNS=N: its runs, default 500)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '#server/compose/start-server.js';
import { FreshnessSigner } from '#server/updates/keys/freshness-signer.js';
import { pinKeys, verifyAnswer, verifyManifest, type AnswerInput } from '#core/trust/verify.js';
import {
  encodeFreshness,
  encodeKeySet,
  encodeManifest,
  encodeManifestAnswer,
  encodeRelease,
  FRESHNESS_PAYLOAD_TYPE,
  generateKeyPair,
  keyIdOf,
  KEYSET_PAYLOAD_TYPE,
  nativeSigner,
  publicKeyOf,
  pubkeyToHex,
  RELEASE_PAYLOAD_TYPE,
  releaseDigest,
  seedSigner,
  signDsse,
  signEnvelope,
  type ManifestArtifact,
} from '#protocol';
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

/**
 * Median microseconds per call of each function, over `runs` interleaved rounds (one call of
 * each per round, after a few warm-up calls), so a busy shared machine weighs on all alike.
 */
function medianUs(runs: number, fns: readonly (() => unknown)[]): number[] {
  for (let i = 0; i < 20; i++) for (const fn of fns) fn();
  const times = fns.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    fns.forEach((fn, j) => {
      const start = performance.now();
      fn();
      times[j]?.push((performance.now() - start) * 1000);
    });
  }
  return times.map(median);
}

/** Client verification of a format 2 answer (16 release keys, threshold 3) vs format 1. */
function clientVerify(runs: number): void {
  const signer = () => seedSigner(generateKeyPair().secretKey);
  const hex = (s: { publicKey: Uint8Array }) => pubkeyToHex(s.publicKey);
  const root = signer();
  const release = Array.from({ length: 16 }, signer);
  const freshness = signer();
  const keySet = encodeKeySet({
    version: 1,
    root: { threshold: 1, keys: [hex(root)] },
    release: { threshold: 3, keys: release.map(hex) },
    freshness: { threshold: 1, keys: [hex(freshness)] },
  });
  const sha = 'a'.repeat(64);
  const artifacts: ManifestArtifact[] = ['README.txt', 'app/lib.js', 'app/main.js'].map((name) => ({
    name,
    size: 20,
    sha256: sha,
    url: `api/updates/artifacts/${sha}`,
  }));
  const releasePayload = encodeRelease({ registry_version: '1.0.0', artifacts });
  const now = Date.now();
  const statement = encodeFreshness({
    release_sha256: releaseDigest(releasePayload),
    keys_version: 1,
    sequence: 2,
    issued_at: new Date(now - 60_000).toISOString(),
    expires_at: new Date(now + 86_400_000).toISOString(),
  });
  const answer = encodeManifestAnswer(
    {
      keys: [signDsse(keySet, KEYSET_PAYLOAD_TYPE, [root])],
      release: signDsse(releasePayload, RELEASE_PAYLOAD_TYPE, release.slice(0, 3)),
    },
    signDsse(statement, FRESHNESS_PAYLOAD_TYPE, [freshness]),
  );
  const input: AnswerInput = {
    pinned: pinKeys([hex(root)]),
    trust: null,
    floor: null,
    nowMs: now,
    maxFutureSkewMs: 300_000,
    nonce: undefined,
    maxManifestBytes: 8 * 1024 * 1024,
  };
  const first = verifyAnswer(answer, input);
  const trusted = {
    ...input,
    trust: first.trust?.trust ?? null,
    floor: first.trust?.floor ?? null,
  };
  const rootKey = generateKeyPair();
  const legacy = new TextEncoder().encode(
    JSON.stringify(
      signEnvelope(
        encodeManifest({
          registry_version: '1.0.0',
          issued_at: new Date(now - 60_000).toISOString(),
          expires_at: new Date(now + 86_400_000).toISOString(),
          artifacts,
        }),
        rootKey.secretKey,
        rootKey.publicKey,
      ),
    ),
  );
  const legacyPinned = pinKeys([pubkeyToHex(rootKey.publicKey)]);
  const [f1 = 0, walk = 0, steady = 0] = medianUs(runs, [
    () => verifyManifest(legacy, legacyPinned, 8 * 1024 * 1024),
    () => verifyAnswer(answer, input),
    () => verifyAnswer(answer, trusted),
  ]);
  console.log(
    `client verify, format 2 answer of ${answer.length} bytes, release role 16 keys threshold 3, median of ${runs}:`,
  );
  console.log(`format 1 envelope (1 verification)          ${f1.toFixed(0).padStart(6)} us  1.00x`);
  console.log(
    `format 2, first contact (6 verifications)   ${walk.toFixed(0).padStart(6)} us  ${(walk / f1).toFixed(2)}x`,
  );
  console.log(
    `format 2, key set trusted (4 verifications) ${steady.toFixed(0).padStart(6)} us  ${(steady / f1).toFixed(2)}x`,
  );
}

if (process.env['VERIFY_ONLY'] === undefined) await main();
clientVerify(Number(process.env['VERIFY_RUNS'] ?? 500));
