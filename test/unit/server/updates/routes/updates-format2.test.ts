/**
 * The format 2 answer of the server (docs/PROTOCOL.md §2.7): what a client pinning node_pubkey
 * verifies, freshness re-signed on the dev clock, the nonce, the keys route and bundles.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import {
  encodeRelease,
  parseKeysAnswer,
  parseManifestAnswer,
  RELEASE_PAYLOAD_TYPE,
  seedSigner,
  signDsse,
  type DsseEnvelope,
  type Signer,
} from '#protocol';
import { checkAnswer } from '#test/answer-check.js';
import { appWithKey, bearer } from '#test/server-harness.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NONCE = 'abcdefghijklmnopqrstuv';

let built: BuiltApp;
let key: string;
beforeEach(async () => {
  ({ built, key } = await appWithKey({ dev: true }, { now: () => T0 }));
});
afterEach(async () => {
  await built.app.close();
});

const get = (url = '/api/updates/manifest', headers = bearer(key)) =>
  built.app.inject({ method: 'GET', url, headers });
const advance = (ms: number) =>
  built.app.inject({ method: 'POST', url: '/api/dev/clock', payload: { advance_ms: ms } });
const check = (bytes: Buffer, nowMs: number) =>
  checkAnswer(bytes, built.modules.updates.api.nodePubkey, nowMs);
const keyFile = async (name: string): Promise<Signer> => {
  const text = await readFile(join(built.ctx.dataDir, name), 'utf8');
  const hex = (JSON.parse(text) as { secret_key_hex: string }).secret_key_hex;
  return seedSigner(new Uint8Array(Buffer.from(hex, 'hex')));
};
const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('GET /api/updates/manifest (format 2)', () => {
  it('answers format 2 that a client pinning node_pubkey verifies', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    const { release, freshness } = check(res.rawPayload, T0);
    expect(release.registry_version).toBe('0.0.0');
    expect(freshness.expiresAtMs).toBe(T0 + DAY);
  });

  it('serves the same bytes until half the lifetime is gone, then a higher sequence', async () => {
    const first = (await get()).rawPayload;
    await advance(12 * HOUR - 1);
    expect(Buffer.compare((await get()).rawPayload, first)).toBe(0);
    await advance(1);
    const later = check((await get()).rawPayload, T0 + 12 * HOUR);
    expect(later.freshness.sequence).toBe(check(first, T0).freshness.sequence + 1);
  });

  it('stays valid eight days after the only publish (the freeze that bricked format 1)', async () => {
    await advance(8 * DAY);
    expect(check((await get()).rawPayload, T0 + 8 * DAY).release.registry_version).toBe('0.0.0');
  });

  it('binds the statement to ?nonce= with the current sequence', async () => {
    const plain = check((await get()).rawPayload, T0);
    const res = await get(`/api/updates/manifest?nonce=${NONCE}`);
    const bound = check(res.rawPayload, T0);
    expect(bound.freshness.nonce).toBe(NONCE);
    expect(bound.freshness.sequence).toBe(plain.freshness.sequence);
  });

  it('refuses a nonce of another shape with 400 INVALID_NONCE', async () => {
    const res = await get('/api/updates/manifest?nonce=short');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_NONCE' });
  });

  it('refuses a nonce given twice with 400 INVALID_NONCE', async () => {
    const res = await get(`/api/updates/manifest?nonce=${NONCE}&nonce=${NONCE}`);
    expect(res.json()).toMatchObject({ code: 'INVALID_NONCE' });
  });

  it('checks the bearer before the nonce (401 first)', async () => {
    expect((await get('/api/updates/manifest?nonce=x', {})).statusCode).toBe(401);
  });
});

describe('GET /api/updates/manifest: ETag and 304 (docs/PROTOCOL.md §2.7.6)', () => {
  const conditional = (tag: string, url?: string) =>
    get(url, { ...bearer(key), 'if-none-match': tag });

  it('tags the answer with a strong ETag of its bytes and answers 304 to it, without a body', async () => {
    const first = await get();
    const tag = String(first.headers.etag);
    const digest = createHash('sha256').update(first.rawPayload).digest('base64url');
    expect(tag).toBe(`"${digest}"`);
    const again = await conditional(tag);
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(tag);
    expect((await conditional(`"other", W/${tag}`)).statusCode).toBe(304);
    expect((await conditional('*')).statusCode).toBe(304);
  });

  it('answers 200 with the new bytes once freshness is re-signed (the bytes, so the tag, change)', async () => {
    const tag = String((await get()).headers.etag);
    await advance(12 * HOUR);
    const res = await conditional(tag);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).not.toBe(tag);
    check(res.rawPayload, T0 + 12 * HOUR);
  });

  it('never answers 304 to a nonce request, and tags no nonce answer', async () => {
    const tag = String((await get()).headers.etag);
    const res = await conditional(tag, `/api/updates/manifest?nonce=${NONCE}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(check(res.rawPayload, T0).freshness.nonce).toBe(NONCE);
  });

  it('checks the bearer before If-None-Match (401, no tag)', async () => {
    const tag = String((await get()).headers.etag);
    const res = await get(undefined, { 'if-none-match': tag });
    expect(res.statusCode).toBe(401);
    expect(res.headers.etag).toBeUndefined();
  });
});

describe('GET /api/updates/keys', () => {
  it('serves the whole chain behind the machine key', async () => {
    const res = await get('/api/updates/keys');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(parseKeysAnswer(res.rawPayload)).toHaveLength(1);
    expect((await get('/api/updates/keys', {})).statusCode).toBe(401);
  });
});

describe('publishing a bundle signed offline', () => {
  const publishBundle = (bundle: unknown, files: Record<string, string>) =>
    built.app.inject({
      method: 'POST',
      url: '/api/dev/releases',
      payload: {
        bundle,
        artifacts: Object.entries(files).map(([name, text]) => ({
          name,
          content_base64: b64(text),
        })),
      },
    });
  const bundleOf = (version: string, files: Record<string, string>, signers: Signer[]) => {
    const artifacts = Object.entries(files).map(([name, text]) => {
      const sha256 = createHashHex(text);
      return {
        name,
        size: Buffer.byteLength(text),
        sha256,
        url: `api/updates/artifacts/${sha256}`,
      };
    });
    return signDsse(
      encodeRelease({ registry_version: version, artifacts }),
      RELEASE_PAYLOAD_TYPE,
      signers,
    );
  };

  it('serves the bundle exactly as signed', async () => {
    const bundle = bundleOf('1.0.0', { 'a.txt': 'hello' }, [await keyFile('release-key.json')]);
    expect((await publishBundle(bundle, { 'a.txt': 'hello' })).statusCode).toBe(200);
    const answer = parseManifestAnswer((await get()).rawPayload);
    if (answer.format !== 2) throw new Error('format 2 expected');
    expect(Buffer.from(answer.release.payload).toString('base64')).toBe(bundle.payload);
    expect(check((await get()).rawPayload, T0).release.registry_version).toBe('1.0.0');
  });

  it('refuses a bundle signed by the freshness key with 400 THRESHOLD_NOT_MET', async () => {
    const bundle = bundleOf('1.0.0', { 'a.txt': 'x' }, [await keyFile('freshness-key.json')]);
    const res = await publishBundle(bundle, { 'a.txt': 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'THRESHOLD_NOT_MET' });
  });

  it('refuses something that is not an envelope with 400 INVALID_BUNDLE', async () => {
    expect((await publishBundle({ nope: 1 }, {})).json()).toMatchObject({ code: 'INVALID_BUNDLE' });
  });

  it('refuses bytes other than the signed ones with 400 ARTIFACT_MISMATCH', async () => {
    const bundle = bundleOf('1.0.0', { 'a.txt': 'signed' }, [await keyFile('release-key.json')]);
    const res = await publishBundle(bundle, { 'a.txt': 'tampered' });
    expect(res.json()).toMatchObject({ code: 'ARTIFACT_MISMATCH' });
  });

  it('refuses a file the release does not sign with 400 ARTIFACT_MISMATCH', async () => {
    const bundle = bundleOf('1.0.0', { 'a.txt': 'x' }, [await keyFile('release-key.json')]);
    const res = await publishBundle(bundle, { 'a.txt': 'x', 'extra.txt': 'y' });
    expect(res.json()).toMatchObject({ code: 'ARTIFACT_MISMATCH' });
  });

  it('accepts the same release signed anew without uploading again (same version)', async () => {
    const release = await keyFile('release-key.json');
    const bundle = bundleOf('1.0.0', { 'a.txt': 'x' }, [release]);
    expect((await publishBundle(bundle, { 'a.txt': 'x' })).statusCode).toBe(200);
    const again: DsseEnvelope = { ...bundle, signatures: [...bundle.signatures] };
    expect((await publishBundle(again, {})).statusCode).toBe(200);
  });

  it('builds the signed table of packs, or refuses one its files do not make (ARTIFACT_MISMATCH)', async () => {
    const files = { 'a.txt': 'first member ', 'b.txt': 'second member' };
    const joined = Object.values(files).join('');
    const sha = createHashHex(joined);
    const pack = { sha256: sha, size: joined.length, url: `api/updates/artifacts/${sha}` };
    const signer = await keyFile('release-key.json');
    const signedWith = (offsets: readonly number[]) =>
      signDsse(
        encodeRelease({
          registry_version: '1.0.0',
          artifacts: Object.entries(files).map(([name, text], i) => ({
            name,
            size: text.length,
            sha256: createHashHex(text),
            url: `api/updates/artifacts/${createHashHex(text)}`,
            pack: { ...pack, offset: offsets[i] ?? 0 },
          })),
        }),
        RELEASE_PAYLOAD_TYPE,
        [signer],
      );
    const forged = await publishBundle(signedWith([0, 1]), files);
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({ code: 'ARTIFACT_MISMATCH' });
    expect(forged.json<{ error: string }>().error).toContain(sha);
    expect((await get(`/api/updates/artifacts/${sha}`)).statusCode).toBe(404);
    expect((await publishBundle(signedWith([0, 13]), files)).statusCode).toBe(200);
    expect((await get(`/api/updates/artifacts/${sha}`)).body).toBe(joined);
  });

  it('refuses another release under a published version with 409 VERSION_NOT_INCREASING', async () => {
    const release = await keyFile('release-key.json');
    expect(
      (await publishBundle(bundleOf('1.0.0', { 'a.txt': 'x' }, [release]), { 'a.txt': 'x' }))
        .statusCode,
    ).toBe(200);
    const other = bundleOf('1.0.0', { 'a.txt': 'y' }, [release]);
    expect((await publishBundle(other, { 'a.txt': 'y' })).json()).toMatchObject({
      code: 'VERSION_NOT_INCREASING',
    });
  });
});

function createHashHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
