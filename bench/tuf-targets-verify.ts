/**
 * Verification of a 10,000-target targets.json (docs/PROTOCOL.md §TUF repository, Figures):
 * our trusted set (src/core/tuf TrustedMetadataSet.updateDelegatedTargets: length and SHA-256
 * against snapshot, strict JSON parse, canonical JSON of `signed`, the Ed25519 signature,
 * version and expiry) against tuf-js 5's TrustedMetadataStore.updateDelegatedTargets (the same
 * steps, TUF spec §5.6), over the same bytes, in one run: interleaved rounds, the order of the
 * two flipped each round, medians. Root, timestamp and snapshot are loaded outside the timing.
 * @tufjs/models 4.1.1 builds and serialises a targets map by spreading it into a new object
 * once per target (targets.js, `reduce` over `...acc`), so tuf-js grows with the square of the
 * count: a round at 10,000 targets takes minutes on a loaded box, hence few rounds.
 * Run: npx tsx bench/tuf-targets-verify.ts [counts, default 1000,2500,10000] [rounds, default 3]
 * (one JSON line per count)
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { TrustedMetadataStore } from 'tuf-js/dist/store.js';
import { TrustedMetadataSet, tufConfig } from '#core/tuf/index.js';
import { tuf } from '#protocol';

const counts = (process.argv[2] ?? '1000,2500,10000').split(',').map(Number);
const rounds = Number(process.argv[3] ?? 3);

function signer(): tuf.TufSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x ?? '';
  return {
    publicHex: Buffer.from(x, 'base64url').toString('hex'),
    sign: (message) => sign(null, message, privateKey),
  };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Root, timestamp, snapshot and a targets file of `count` targets, one key for every role. */
function repository(count: number) {
  const key = signer();
  const role = { keys: [key.publicHex], threshold: 1 };
  const expiresMs = Date.now() + 24 * 3600 * 1000;
  const root = tuf.signMetadata(
    tuf.buildRoot({
      version: 1,
      expiresMs,
      root: role,
      targets: role,
      snapshot: role,
      timestamp: role,
    }),
    [key],
  );
  const files = Array.from({ length: count }, (_, i) => ({
    path: `app/files/${String(i).padStart(5, '0')}/part.bin`,
    length: 1000 + i,
    sha256: sha256(Buffer.from(String(i))),
    custom: { chunk_index: { sha256: sha256(Buffer.from(`c${i}`)), length: 100 } },
  }));
  const targets = tuf.signMetadata(
    tuf.buildTargets({ version: 1, expiresMs, custom: { registry_version: '1.0.0' } }, files),
    [key],
  );
  const snapshotSigned = tuf.buildSnapshot({ version: 1, expiresMs }, 1);
  const meta = snapshotSigned['meta'] as Record<string, Record<string, unknown>>;
  meta['targets.json'] = {
    version: 1,
    length: targets.length,
    hashes: { sha256: sha256(targets) },
  };
  const snapshot = tuf.signMetadata(snapshotSigned, [key]);
  const timestamp = tuf.signMetadata(
    tuf.buildTimestamp(
      { version: 1, expiresMs },
      { version: 1, length: snapshot.length, sha256: sha256(snapshot) },
    ),
    [key],
  );
  return { root, timestamp, snapshot, targets };
}

type Repo = ReturnType<typeof repository>;

function ours(repo: Repo): number {
  const set = new TrustedMetadataSet(repo.root, Date.now(), tufConfig());
  set.updateTimestamp(repo.timestamp);
  set.updateSnapshot(repo.snapshot, false);
  const start = performance.now();
  set.updateDelegatedTargets(repo.targets, 'targets', 'root');
  return performance.now() - start;
}

function tufJs(repo: Repo): number {
  const store = new TrustedMetadataStore(Buffer.from(repo.root));
  store.updateTimestamp(Buffer.from(repo.timestamp));
  store.updateSnapshot(Buffer.from(repo.snapshot));
  const bytes = Buffer.from(repo.targets);
  const start = performance.now();
  store.updateDelegatedTargets(bytes, 'targets', 'root');
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function measure(count: number): void {
  const repo = repository(count);
  const times = { ours: [] as number[], tufJs: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      times.ours.push(ours(repo));
      times.tufJs.push(tufJs(repo));
    } else {
      times.tufJs.push(tufJs(repo));
      times.ours.push(ours(repo));
    }
  }
  const a = median(times.ours);
  const b = median(times.tufJs);
  const out = {
    targets: count,
    targets_json_bytes: repo.targets.length,
    rounds,
    ours_median_ms: Number(a.toFixed(2)),
    tuf_js_median_ms: Number(b.toFixed(2)),
    ours_over_tuf_js: Number((a / b).toFixed(4)),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function main(): void {
  // Warm both up (JIT) on a small file before the timed rounds.
  const small = repository(100);
  for (let i = 0; i < 5; i++) {
    ours(small);
    tufJs(small);
  }
  for (const count of counts) measure(count);
}

main();
