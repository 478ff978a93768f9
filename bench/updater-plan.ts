/**
 * Verify + plan time for a manifest of 10,000 artifacts, in-process: Ed25519 over the exact
 * payload, strict parse (names, digests, order), policy, then the plan against an installed set
 * where 1% changed. Target: <= 50 ms.
 *
 *   npx tsx bench/updater-plan.ts            (BENCH_ARTIFACTS=10000 BENCH_RUNS=30)
 */
import { createHash } from 'node:crypto';
import { DEFAULT_LIMITS, resolveLimits } from '../src/core/limits.js';
import { planUpdate } from '../src/core/plan.js';
import { checkPolicy } from '../src/core/policy.js';
import { EMPTY_STATE, type InstalledSet } from '../src/core/state.js';
import { pinKeys, verifyManifest } from '../src/core/verify.js';
import {
  encodeManifest,
  generateKeyPair,
  pubkeyToHex,
  signEnvelope,
  type ManifestArtifact,
} from '../src/protocol/index.js';
import { envInt, percentiles, printTable } from './updater-kit.js';

const COUNT = envInt('BENCH_ARTIFACTS', 10_000);
const RUNS = envInt('BENCH_RUNS', 30);

const hex = (text: string): string => createHash('sha256').update(text).digest('hex');
const artifacts: ManifestArtifact[] = Array.from({ length: COUNT }, (_, i) => {
  const name = `pkg/${String(i).padStart(5, '0')}.bin`;
  const sha256 = hex(`content ${i}`);
  return { name, size: 1000 + i, sha256, url: `blobs/${sha256}` };
});
const now = Date.now();
const payload = encodeManifest({
  registry_version: '2.0.0',
  issued_at: new Date(now - 60_000).toISOString(),
  expires_at: new Date(now + 86_400_000).toISOString(),
  artifacts,
});
const keys = generateKeyPair();
const bytes = new TextEncoder().encode(
  JSON.stringify(signEnvelope(payload, keys.secretKey, keys.publicKey)),
);
const pinned = pinKeys([pubkeyToHex(keys.publicKey)]);
// Installed 1.0.0: the same set with 1% of the contents different.
const installed: InstalledSet = {
  setId: hex('1.0.0'),
  version: '1.0.0',
  artifacts: artifacts.map((a, i) => ({
    name: a.name,
    size: a.size,
    sha256: i % 100 === 0 ? hex(`old ${i}`) : a.sha256,
  })),
};
const fitsDefault = bytes.length <= DEFAULT_LIMITS.maxManifestBytes;
const limits = resolveLimits({ maxManifestBytes: Math.max(bytes.length, 1024 * 1024) });
const state = { ...EMPTY_STATE, installed, highestAcceptedVersion: '1.0.0' };

function once(): { ms: number; fetch: number } {
  const t0 = performance.now();
  const vm = verifyManifest(bytes, pinned, limits.maxManifestBytes);
  checkPolicy(vm, state, Date.now(), limits, 'http://127.0.0.1/');
  const plan = planUpdate(installed, vm);
  return { ms: performance.now() - t0, fetch: plan.summary.fetch.length };
}

const cold = once();
const samples: number[] = [];
for (let i = 0; i < RUNS; i++) samples.push(once().ms);
const { median, p95, max } = percentiles(samples);

printTable(`verify + policy + plan, ${COUNT} artifacts (target <= 50 ms)`, [
  ['envelope bytes', `${bytes.length} (${(bytes.length / 1024 / 1024).toFixed(2)} MiB)`],
  [
    'fits default maxManifestBytes (1 MiB)',
    fitsDefault ? 'yes' : 'NO (limit raised for this bench)',
  ],
  ['artifacts to fetch (1% changed)', String(cold.fetch)],
  ['first run (cold JIT)', `${cold.ms.toFixed(1)} ms`],
  [`median of ${RUNS}`, `${median.toFixed(1)} ms`],
  ['p95', `${p95.toFixed(1)} ms`],
  ['max', `${max.toFixed(1)} ms`],
  ['target met (median <= 50 ms)', median <= 50 ? 'yes' : 'no'],
]);
