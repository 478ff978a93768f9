/**
 * The QA package's verifiers (packages/server/src/verify.ts, docs/SERVER.md §As a package):
 * `verifyAnswer` checks a whole format 2 answer from the pinned key as a first-contact updater
 * does, and keeps working after the server's root key goes offline and the chain outgrows the
 * 8 links an answer carries.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyAnswer, verifyManifest } from '../../../../packages/server/src/verify.js';
import { buildApp, type BuiltApp } from '#server/compose/app.js';
import { createRandom } from '#server/platform/random.js';
import { rotateKeys } from '#server/updates/keys/rotate-keys.js';
import { bearer, mintKey } from '#test/server-harness.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
let dir: string;
let built: BuiltApp;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pkg-verify-'));
  built = await buildApp(
    { dataDir: dir, logLevel: 'silent', simulate: false, dev: true },
    { now: () => T0 },
  );
  await built.app.ready();
  await built.modules.updates.api.publish({
    registry_version: '1.0.0',
    artifacts: [{ name: 'app/hello.txt', content: new TextEncoder().encode('hello\n') }],
  });
});
afterEach(async () => {
  await built.app.close();
  await rm(dir, { recursive: true, force: true });
});

async function get(url: string): Promise<Uint8Array> {
  const key = await mintKey(built.app);
  const res = await built.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode).toBe(200);
  return new Uint8Array(res.rawPayload);
}
const pin = (): string => built.modules.updates.api.nodePubkey;

describe('verifyAnswer', () => {
  it('checks the whole format 2 answer from the pinned key', async () => {
    const checked = verifyAnswer(await get('/api/updates/manifest'), pin(), { nowMs: T0 });
    expect(checked.format).toBe(2);
    expect(checked.manifest.registry_version).toBe('1.0.0');
    // The set id under its core name and the name the package has always returned it under.
    expect(checked.payloadSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(checked.payloadSha256).toBe(checked.setId);
    expect(checked.manifest.artifacts.map((a) => a.name)).toEqual(['app/hello.txt']);
  });

  it('refuses a changed byte, another pin, an expired statement and a missing nonce', async () => {
    const bytes = await get('/api/updates/manifest');
    const text = new TextDecoder().decode(bytes);
    const at = text.indexOf('"release"') + 40;
    const flipped = new TextEncoder().encode(
      text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1),
    );
    expect(() => verifyAnswer(flipped, pin(), { nowMs: T0 })).toThrow();
    expect(() => verifyAnswer(bytes, 'ab'.repeat(32), { nowMs: T0 })).toThrow(
      expect.objectContaining({ name: 'UpdateError' }),
    );
    expect(() => verifyAnswer(bytes, pin(), { nowMs: T0 + 400 * 86_400_000 })).toThrow(
      expect.objectContaining({ code: 'MANIFEST_EXPIRED' }),
    );
    expect(() => verifyAnswer(bytes, pin(), { nowMs: T0, nonce: 'abcdefghijklmnop' })).toThrow(
      expect.objectContaining({ code: 'NONCE_MISMATCH' }),
    );
  });

  it('accepts the statement signed for its nonce', async () => {
    const nonce = 'abcdefghijklmnop-_12';
    const bytes = await get(`/api/updates/manifest?nonce=${nonce}`);
    expect(verifyAnswer(bytes, pin(), { nowMs: T0, nonce }).format).toBe(2);
  });

  it('follows a chain longer than an answer carries when given GET /api/updates/keys', async () => {
    // Nine root rotations: the pinned key signs only link 2, which the answer no longer carries.
    const rootFile = (i: number): string => join(dir, `root-${i}.json`);
    for (let i = 1; i <= 9; i++) {
      await rotateKeys(
        {
          dataDir: dir,
          rootKeyFiles: i === 1 ? [] : [rootFile(i - 1)],
          newRootKeyFiles: [rootFile(i)],
          rootThreshold: 1,
          releasePubkeys: [],
          newReleaseKey: false,
          releaseThreshold: undefined,
          newFreshnessKey: false,
        },
        createRandom(undefined),
        () => Date.now(),
      );
    }
    let bytes = await get('/api/updates/manifest');
    for (let i = 0; i < 200; i++) {
      const links = (JSON.parse(new TextDecoder().decode(bytes)) as { keys: unknown[] }).keys;
      const version = (
        JSON.parse(
          Buffer.from((links.at(-1) as { payload: string }).payload, 'base64').toString('utf8'),
        ) as { version: number }
      ).version;
      if (version === 10) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
      bytes = await get('/api/updates/manifest');
    }
    expect(() => verifyAnswer(bytes, pin(), { nowMs: T0 })).toThrow(
      expect.objectContaining({ code: 'KEY_CHAIN_GAP' }),
    );
    const keyChain = await get('/api/updates/keys');
    expect(verifyAnswer(bytes, pin(), { nowMs: T0, keyChain }).format).toBe(2);
    expect(() =>
      verifyAnswer(bytes, pin(), { nowMs: T0, keyChain: new TextEncoder().encode('{}') }),
    ).toThrow(expect.objectContaining({ name: 'UpdateError' }));
  });
});

describe('verifyManifest', () => {
  it('reads the format 1 envelope a server signs while its root key is online', async () => {
    const { manifest } = verifyManifest(await get('/api/updates/manifest'), pin());
    expect(manifest.registry_version).toBe('1.0.0');
  });
});
