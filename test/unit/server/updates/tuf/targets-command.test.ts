/**
 * `sign-release --tuf-targets` (server/src/updates/tuf/targets-command.ts): the first signer
 * writes targets version N for the bundle, a second adds its signature to the same file, and
 * the flags parse as documented.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RELEASE_PAYLOAD_TYPE, signDsse, tuf } from '#protocol';
import { parseTrustCommand } from '#server/cli/trust-args.js';
import { createRandom } from '#server/platform/random.js';
import { signTargetsFile } from '#server/updates/tuf/targets-command.js';
import { expectCode } from '#test/expect-code.js';
import { newKey } from '#test/trust-kit.js';

const random = createRandom(undefined);
const keys = [newKey(), newKey()];
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'targets-command-'));
  for (const [i, key] of keys.entries()) {
    await writeFile(join(dir, `k${i}.json`), Buffer.from(key.secretKey).toString('hex'));
  }
  const payload = new TextEncoder().encode(
    JSON.stringify({ registry_version: '3.0.0', artifacts: [] }),
  );
  const bundle = signDsse(payload, RELEASE_PAYLOAD_TYPE, [keys[0]!]);
  await writeFile(join(dir, 'bundle.json'), JSON.stringify(bundle));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sign-release --tuf-targets', () => {
  it('signs targets N for the bundle, then a second key co-signs the same file', async () => {
    const common = { bundleFile: join(dir, 'bundle.json'), targetsFile: join(dir, 't.json') };
    const first = await signTargetsFile(
      { ...common, releaseKeyFiles: [join(dir, 'k0.json')], version: 7 },
      random,
      Date.parse('2026-01-01T00:00:00Z'),
    );
    expect(first).toMatchObject({ version: 7, keyids: [tuf.tufKeyId(keys[0]!.hex)] });
    const second = await signTargetsFile(
      { ...common, releaseKeyFiles: [join(dir, 'k1.json')], version: undefined },
      random,
      Date.now(),
    );
    expect([...second.keyids].sort()).toEqual(keys.map((k) => tuf.tufKeyId(k.hex)).sort());
  });

  it('parses --tuf-targets and refuses --tuf-targets-version alone', () => {
    const c = parseTrustCommand('sign-release', [
      '--release-key',
      'k',
      '--bundle',
      'b',
      '--tuf-targets',
      't.json',
    ]);
    expect(c).toMatchObject({ tufTargets: 't.json', tufTargetsVersion: undefined });
    expectCode(
      () =>
        parseTrustCommand('sign-release', [
          '--release-key',
          'k',
          '--bundle',
          'b',
          '--tuf-targets-version',
          '2',
        ]),
      'USAGE',
    );
  });
});
