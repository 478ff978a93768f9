/**
 * Verify + plan time for a manifest of 10,000 artifacts, in-process: Ed25519 over the exact
 * payload, strict parse (names, digests, order), policy, then the plan against an installed set
 * where 1% changed. Target: <= 50 ms.
 *
 *   npx tsx bench/updater-plan.ts            (BENCH_ARTIFACTS=10000 BENCH_RUNS=30)
 */
import { createHash } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { DEFAULT_LIMITS, resolveLimits } from '#core/limits.js';
import { planUpdate } from '#core/plan/plan.js';
import { checkPolicy } from '#core/trust/policy.js';
import { EMPTY_STATE, type InstalledSet } from '#core/state.js';
import { pinKeys, verifyManifest } from '#core/trust/verify.js';
import {
  encodeManifest,
  generateKeyPair,
  pae,
  parseEnvelope,
  parseManifest,
  pubkeyToHex,
  resolveArtifactUrl,
  signEnvelope,
  verifyEd25519,
  type ManifestArtifact,
} from '#protocol';
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
// The defaults, as the CLI runs: the envelope must fit them (verifyManifest refuses otherwise).
const limits = resolveLimits();
const fitsDefault = bytes.length <= DEFAULT_LIMITS.maxManifestBytes;
const state = { ...EMPTY_STATE, installed, highestAcceptedVersion: '1.0.0' };

/** One verify + policy + plan; wall time, and CPU time (less skewed by other processes). */
function once(): { ms: number; cpuMs: number; fetch: number } {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const vm = verifyManifest(bytes, pinned, limits.maxManifestBytes);
  checkPolicy(vm, state, Date.now(), limits, 'http://127.0.0.1/');
  const plan = planUpdate(installed, vm);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, fetch: plan.summary.fetch.length };
}

const cold = once();
const samples: number[] = [];
const cpuSamples: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const run = once();
  samples.push(run.ms);
  cpuSamples.push(run.cpuMs);
}
const { median, p95, max } = percentiles(samples);
const cpu = percentiles(cpuSamples);
const [load1] = loadavg();

/** Median CPU time of each stage on its own, to show where the time goes. */
function stage(run: () => unknown): number {
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpu0 = process.cpuUsage();
    run();
    const cpu1 = process.cpuUsage(cpu0);
    out.push((cpu1.user + cpu1.system) / 1000);
  }
  return percentiles(out).median;
}
const env = parseEnvelope(bytes);
const sig = env.signatures[0]?.sig ?? new Uint8Array();
const stages: [string, number][] = [
  ['  envelope JSON + strict base64', stage(() => parseEnvelope(bytes))],
  [
    '  Ed25519 over PAE(payload)',
    stage(() => verifyEd25519(sig, pae(env.payloadType, env.payload), keys.publicKey)),
  ],
  ['  manifest parse (names, digests, order)', stage(() => parseManifest(env.payload))],
  [
    '  artifact URL resolution (policy)',
    stage(() => artifacts.map((a) => resolveArtifactUrl('http://127.0.0.1/', a.url))),
  ],
  [
    '  verify again + plan (plan = this minus verify)',
    stage(() => planUpdate(installed, verifyManifest(bytes, pinned, limits.maxManifestBytes))),
  ],
];

printTable(`verify + policy + plan, ${COUNT} artifacts (target <= 50 ms)`, [
  ['envelope bytes', `${bytes.length} (${(bytes.length / 1024 / 1024).toFixed(2)} MiB)`],
  [
    `fits default maxManifestBytes (${DEFAULT_LIMITS.maxManifestBytes / 1024 / 1024} MiB)`,
    fitsDefault ? 'yes' : 'NO',
  ],
  ['artifacts to fetch (1% changed)', String(cold.fetch)],
  ['first run (cold JIT)', `${cold.ms.toFixed(1)} ms`],
  [`median of ${RUNS}`, `${median.toFixed(1)} ms`],
  ['p95', `${p95.toFixed(1)} ms`],
  ['max', `${max.toFixed(1)} ms`],
  [`CPU time (user+sys) median / p95`, `${cpu.median.toFixed(1)} / ${cpu.p95.toFixed(1)} ms`],
  ['CPU median by stage (each alone):', ''],
  ...stages.map(([k, v]): [string, string] => [k, `${v.toFixed(1)} ms`]),
  ['load average (1 min) at the end', `${(load1 ?? 0).toFixed(1)} on ${cpus().length} CPUs`],
  ['target met (median <= 50 ms)', median <= 50 ? 'yes' : 'no'],
]);
