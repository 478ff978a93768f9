/**
 * The keys a server holds (docs/PROTOCOL.md §2.7.8): key set 1 on a fresh directory, a format 1
 * directory migrated, a production directory with only the freshness key, and refusals.
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerClock } from '#server/platform/clock.js';
import { DEFAULT_OPTIONS } from '#server/compose/options.js';
import { createRandom } from '#server/platform/random.js';
import { openUpdateState } from '#server/updates/update-state.js';
import {
  encodeManifest,
  generateKeyPair,
  parseKeySet,
  envelopeFromJson,
  signEnvelope,
} from '#protocol';

const T0 = Date.parse('2026-01-01T00:00:00Z');
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trust-keys-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const open = () =>
  openUpdateState({
    dataDir: dir,
    options: { ...DEFAULT_OPTIONS, dataDir: dir },
    clock: new ServerClock(() => T0),
    random: createRandom(undefined),
  });

describe('a fresh data directory', () => {
  it('gets key set 1: the node key as root, a release key and a freshness key, all distinct', async () => {
    const state = await open();
    const keys = state.trust();
    const first = keys.chain.first;
    expect(first?.version).toBe(1);
    expect(first?.root.keys[0]?.hex).toBe(keys.nodePubkeyHex);
    expect(first?.release.keys[0]?.keyid).toBe(keys.release?.keyid);
    expect(first?.freshness.keys[0]?.keyid).toBe(keys.freshness.keyid);
    expect(new Set([keys.root?.keyid, keys.release?.keyid, keys.freshness.keyid]).size).toBe(3);
    const link = JSON.parse(await readFile(join(dir, 'keys', '1.json'), 'utf8')) as unknown;
    expect(parseKeySet(envelopeFromJson(link, 'keys[0]', 32).payload).version).toBe(1);
  });

  it('keeps the same keys and chain after a restart', async () => {
    const first = (await open()).trust();
    const again = (await open()).trust();
    expect(again.nodePubkeyHex).toBe(first.nodePubkeyHex);
    expect(again.freshness.keyid).toBe(first.freshness.keyid);
  });
});

describe('a production data directory (only the freshness key)', () => {
  it('serves and re-signs freshness without the root and release keys, and refuses to sign releases', async () => {
    await open();
    await rm(join(dir, 'node-key.json'));
    await rm(join(dir, 'release-key.json'));
    const state = await open();
    expect(state.trust().root).toBeUndefined();
    expect(state.trust().release).toBeUndefined();
    expect(await state.answers.answerFor(undefined)).toBeDefined();
    await expect(
      state.publisher.publish({ registry_version: '1.0.0', artifacts: [] }),
    ).rejects.toMatchObject({ code: 'RELEASE_KEY_MISSING', statusCode: 409 });
  });

  it('refuses to start without the freshness key (KEY_CHAIN_INVALID)', async () => {
    await open();
    await rm(join(dir, 'freshness-key.json'));
    await expect(open()).rejects.toMatchObject({ code: 'KEY_CHAIN_INVALID' });
  });

  it('refuses to start with a release key that is not in the key set (KEY_CHAIN_INVALID)', async () => {
    await open();
    await writeFile(join(dir, 'release-key.json'), 'cd'.repeat(32));
    await expect(open()).rejects.toMatchObject({ code: 'KEY_CHAIN_INVALID' });
  });

  it('refuses to start on a tampered key set (KEY_CHAIN_INVALID)', async () => {
    await open();
    const file = join(dir, 'keys', '1.json');
    const link = JSON.parse(await readFile(file, 'utf8')) as { payload: string };
    const payload = Buffer.from(link.payload, 'base64')
      .toString()
      .replace('"version":1', '"version":2');
    await writeFile(
      file,
      JSON.stringify({ ...link, payload: Buffer.from(payload).toString('base64') }),
    );
    await expect(open()).rejects.toMatchObject({ code: 'KEY_CHAIN_INVALID' });
  });
});

describe('a format 1 data directory (docs/PROTOCOL.md §2.7.7)', () => {
  it('migrates: node key as root, the release re-signed as format 2, the old envelope kept', async () => {
    const { secretKey, publicKey } = generateKeyPair();
    await writeFile(
      join(dir, 'node-key.json'),
      JSON.stringify({ secret_key_hex: Buffer.from(secretKey).toString('hex') }),
    );
    const manifest = encodeManifest({
      registry_version: '1.0.0',
      issued_at: new Date(T0).toISOString(),
      expires_at: new Date(T0 + 7 * 86_400_000).toISOString(),
      artifacts: [],
    });
    const old = Buffer.from(JSON.stringify(signEnvelope(manifest, secretKey, publicKey)));
    await mkdir(join(dir, 'releases'), { recursive: true });
    await writeFile(join(dir, 'releases', '1.0.0.json'), old);
    const state = await open();
    expect(state.trust().nodePubkeyHex).toBe(Buffer.from(publicKey).toString('hex'));
    const current = state.releases.current;
    expect(current?.manifest.registry_version).toBe('1.0.0');
    expect(current?.envelope.payloadType).toBe('application/vnd.updates.release+json');
    expect(Buffer.compare(current?.legacy ?? Buffer.alloc(0), old)).toBe(0);
    expect(Buffer.compare(await readFile(join(dir, 'legacy', '1.0.0.json')), old)).toBe(0);
  });

  it('refuses a format 1 release signed by another key (RELEASE_STORE_INVALID)', async () => {
    const stranger = generateKeyPair();
    await open();
    const manifest = encodeManifest({
      registry_version: '2.0.0',
      issued_at: new Date(T0).toISOString(),
      expires_at: new Date(T0 + 86_400_000).toISOString(),
      artifacts: [],
    });
    const forged = JSON.stringify(signEnvelope(manifest, stranger.secretKey, stranger.publicKey));
    await writeFile(join(dir, 'releases', '2.0.0.json'), forged);
    await expect(open()).rejects.toMatchObject({ code: 'RELEASE_STORE_INVALID' });
  });
});
