/**
 * Where the no-op check spends its time on the stored 10,000-target targets.json
 * (docs/PROTOCOL.md §TUF repository, "Client", Measured): each step of re-trusting it timed
 * alone, medians of ROUNDS, in one run. The steps are those of bench/tuf-noop.ts's runs.
 *
 *   npx tsx bench/tuf-noop-steps.ts   (COUNT=10000, ROUNDS=9)
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { verifiedFromTargets } from '#core/trust/tuf-manifest.js';
import { tuf } from '#protocol';
import { envInt, percentiles } from './updater-kit.js';

const COUNT = envInt('COUNT', 10_000);
const ROUNDS = envInt('ROUNDS', 9);

function signer(): tuf.TufSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x ?? '';
  return {
    publicHex: Buffer.from(x, 'base64url').toString('hex'),
    sign: (message) => sign(null, message, privateKey),
  };
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

function targetsFile(key: tuf.TufSigner): Uint8Array {
  const specs: tuf.TargetSpec[] = [];
  for (let i = 0; i < COUNT; i++) {
    const path = `d${String(i % 100).padStart(2, '0')}/f${String(i).padStart(5, '0')}.bin`;
    specs.push({ path, length: 10, sha256: sha256(Buffer.from(path)) });
  }
  const expiresMs = Date.now() + 86_400_000;
  const signed = tuf.buildTargets(
    { version: 1, expiresMs, custom: { registry_version: '1.0.0' } },
    specs,
  );
  return tuf.signMetadata(signed, [key]);
}

function main(): void {
  const key = signer();
  const keyid = tuf.tufKeyId(key.publicHex);
  const tufKey: tuf.TufKey = {
    keyid,
    keytype: 'ed25519',
    scheme: 'ed25519',
    publicValue: key.publicHex,
  };
  const keys = new Map([[keyid, tufKey]]);
  const role = { keyids: [keyid], threshold: 1 };
  const bytes = targetsFile(key);
  const env = tuf.parseEnvelope(bytes, 'targets');
  const digest = sha256(bytes);
  const document = tuf.parseStrictJson(bytes) as tuf.JsonObject;
  const signedJson = document['signed'] ?? null;
  const steps: [string, () => unknown][] = [
    ['sha256 of the bytes', () => sha256(bytes)],
    ['strict JSON parse', () => tuf.parseStrictJson(bytes)],
    ['JSON.parse (reference)', () => JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown],
    ['canonical JSON of signed', () => tuf.canonicalJson(signedJson)],
    ['parseEnvelope (parse, canonical)', () => tuf.parseEnvelope(bytes, 'targets')],
    ['signature threshold', () => tuf.requireThreshold(env, keys, role, 'targets')],
    [
      'to VerifiedManifest (walk skipped)',
      () =>
        verifiedFromTargets({
          targets: env,
          urlOf: (t) => t.path,
          freshUntilMs: Date.now() + 1000,
          nowMs: Date.now(),
          checkedDigest: digest,
        }),
    ],
  ];
  const times = new Map<string, number[]>(steps.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of steps) {
      const start = performance.now();
      run();
      times.get(name)?.push(performance.now() - start);
    }
  }
  console.log(`targets.json: ${bytes.length} bytes, ${COUNT} targets, medians of ${ROUNDS}`);
  for (const [name, samples] of times) {
    console.log(`${name.padEnd(36)} ${percentiles(samples).median.toFixed(1).padStart(7)} ms`);
  }
}

main();
