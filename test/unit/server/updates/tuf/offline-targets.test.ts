/**
 * Targets signed offline (server/src/updates/tuf/offline-targets.ts): built from a release
 * bundle by one holder of a release key, co-signed by another (k of n), and installed only at
 * the threshold of the newest root's targets role, above the served version, for the current
 * release.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRelease, RELEASE_PAYLOAD_TYPE, signDsse, tuf } from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import {
  coSignTargets,
  installTargets,
  targetsFromBundle,
} from '#server/updates/tuf/offline-targets.js';
import { expectCodeAsync } from '#test/expect-code.js';
import { newKey } from '#test/trust-kit.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const rootKey = newKey();
const online = newKey();
const release = [newKey(), newKey(), newKey()];
const sha = 'ab'.repeat(32);
const payload = new TextEncoder().encode(
  JSON.stringify({
    registry_version: '1.4.0',
    artifacts: [{ name: 'app.bin', size: 3, sha256: sha, url: `api/updates/artifacts/${sha}` }],
  }),
);
const bundle = signDsse(payload, RELEASE_PAYLOAD_TYPE, [release[0]!]);
const content = parseRelease(payload);

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'offline-targets-'));
  await mkdir(join(dataDir, 'tuf'));
  const root = tuf.buildRoot({
    version: 1,
    expiresMs: T0 + 365 * 86_400_000,
    root: { keys: [rootKey.hex], threshold: 1 },
    targets: { keys: release.map((k) => k.hex), threshold: 2 },
    snapshot: { keys: [online.hex], threshold: 1 },
    timestamp: { keys: [online.hex], threshold: 1 },
  });
  const bytes = tuf.signMetadata(root, [{ publicHex: rootKey.hex, sign: rootKey.sign }]);
  await writeFileAtomic(join(dataDir, 'tuf', '1.root.json'), bytes);
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('offline targets', () => {
  it('refuses one signature of a 2-of-3 targets role, installs two', async () => {
    const one = targetsFromBundle(bundle, 1, [release[0]!], T0);
    await expectCodeAsync(() => installTargets(dataDir, one, content), 'THRESHOLD_NOT_MET');
    const two = coSignTargets(one, [release[2]!, release[0]!]);
    expect(tuf.parseEnvelope(two, 'targets').signatures).toHaveLength(2);
    expect(await installTargets(dataDir, two, content)).toBe(1);
    const served = tuf.parseEnvelope(two, 'targets').signed.targets.get('app.bin');
    expect(served?.hashes.get('sha256')).toBe(sha);
  });

  it('refuses a version already served and targets of another release', async () => {
    const two = coSignTargets(targetsFromBundle(bundle, 1, [release[0]!], T0), [release[1]!]);
    await installTargets(dataDir, two, content);
    await expectCodeAsync(() => installTargets(dataDir, two, content), 'VERSION_NOT_INCREASING');
    const next = coSignTargets(targetsFromBundle(bundle, 2, [release[0]!], T0), [release[1]!]);
    await expectCodeAsync(
      () => installTargets(dataDir, next, { ...content, registry_version: '1.5.0' }),
      'INVALID_BUNDLE',
    );
  });

  it('refuses targets that send clients elsewhere than the release: a digest, a notes line', async () => {
    const two = coSignTargets(targetsFromBundle(bundle, 1, [release[0]!], T0), [release[1]!]);
    const [artifact] = content.artifacts;
    const other = { ...content, artifacts: [{ ...artifact!, sha256: 'cd'.repeat(32) }] };
    await expectCodeAsync(() => installTargets(dataDir, two, other), 'INVALID_BUNDLE');
    const noted = { ...content, notes: 'not what was signed' };
    await expectCodeAsync(() => installTargets(dataDir, two, noted), 'INVALID_BUNDLE');
    // Refused before anything is written: the same bytes install for the release they describe.
    expect(await installTargets(dataDir, two, content)).toBe(1);
  });

  it('refuses bytes that are not targets metadata', async () => {
    const bytes = new TextEncoder().encode('{"signed":{}}');
    await expectCodeAsync(() => installTargets(dataDir, bytes, undefined), 'INVALID_BUNDLE');
  });
});
