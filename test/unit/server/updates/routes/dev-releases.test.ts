import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltApp } from '#server/compose/app.js';
import { parseEnvelope } from '#protocol/envelope.js';
import { parseManifest } from '#protocol/manifest.js';
import { bearer, mintKey, testApp } from '#test/server-harness.js';
import { postJson } from '#test/post-json.js';

let built: BuiltApp;
beforeEach(async () => {
  built = await testApp({ dev: true });
});
afterEach(async () => {
  await built.app.close();
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const release = (version: string, names: string[] = ['a.txt'], extra: object = {}) =>
  postJson(built.app, '/api/dev/releases', {
    registry_version: version,
    artifacts: names.map((name) => ({ name, content_base64: b64(`content of ${name}`) })),
    ...extra,
  });

function refused(res: Awaited<ReturnType<typeof release>>, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toMatchObject({ ok: false, code });
}

describe('POST /api/dev/releases', () => {
  it('publishes a signed release whose artifacts are sorted and relative to the base URL', async () => {
    const res = await release('1.0.0', ['z.bin', 'a/b.txt']);
    expect(res.statusCode).toBe(200);
    const manifest = parseManifest(
      parseEnvelope(
        (
          await built.app.inject({
            method: 'GET',
            url: '/api/updates/manifest',
            headers: bearer(await mintKey(built.app)),
          })
        ).rawPayload,
      ).payload,
    );
    expect(manifest.registry_version).toBe('1.0.0');
    expect(manifest.artifacts.map((a) => a.name)).toEqual(['a/b.txt', 'z.bin']);
    const first = manifest.artifacts[0];
    expect(first?.url).toBe(`api/updates/artifacts/${first?.sha256 ?? ''}`);
    expect(first?.size).toBe('content of a/b.txt'.length);
  });

  it('signs release notes inside the served manifest, and refuses notes a client would', async () => {
    const notes = '## 1.0.0\n\n- *faster* sync';
    expect((await release('1.0.0', ['a.txt'], { notes })).statusCode).toBe(200);
    const answer = await built.app.inject({
      method: 'GET',
      url: '/api/updates/manifest',
      headers: bearer(await mintKey(built.app)),
    });
    expect(parseManifest(parseEnvelope(answer.rawPayload).payload).notes).toBe(notes);
    refused(await release('1.1.0', ['a.txt'], { notes: 'a\u001b[2Jb' }), 400, 'MANIFEST_MALFORMED');
    refused(
      await release('1.1.0', ['a.txt'], { notes: 'x'.repeat(16 * 1024 + 1) }),
      400,
      'MANIFEST_MALFORMED',
    );
    refused(await release('1.1.0', ['a.txt'], { notes: 42 }), 400, 'MANIFEST_MALFORMED');
  });

  it('uses absolute URLs under artifact_base_url when given', async () => {
    const res = await release('1.0.0', ['a.txt'], { artifact_base_url: 'https://cdn.example/x/' });
    const art = res.json<{ artifacts: { url: string; sha256: string }[] }>().artifacts[0];
    expect(art?.url).toBe(`https://cdn.example/x/${art?.sha256 ?? ''}`);
  });

  it('accepts a release body far over the global 16 KiB limit (its own 32 MiB limit)', async () => {
    const content = Buffer.alloc(200 * 1024, 1).toString('base64');
    const res = await postJson(built.app, '/api/dev/releases', {
      registry_version: '1.0.0',
      artifacts: [{ name: 'big.bin', content_base64: content }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ artifacts: { size: number }[] }>().artifacts[0]?.size).toBe(200 * 1024);
  });

  it('sets the format 1 envelope expiry from expires_in_s on the server clock', async () => {
    expect((await release('1.0.0', ['a.txt'], { expires_in_s: 60 })).statusCode).toBe(200);
    const legacy = built.modules.updates.api.currentRelease()?.legacy ?? Buffer.alloc(0);
    const manifest = parseManifest(parseEnvelope(legacy).payload);
    expect(manifest.expiresAtMs - manifest.issuedAtMs).toBe(60_000);
  });

  it('answers with the freshness statement signed for the release (docs/PROTOCOL.md §2.7.3)', async () => {
    const res = await release('1.0.0', ['a.txt']);
    const body = res.json<{ issued_at: string; expires_at: string; sequence: number }>();
    expect(Date.parse(body.expires_at) - Date.parse(body.issued_at)).toBe(86_400_000);
    expect(body.sequence).toBe(built.modules.updates.api.freshnessSequence());
  });

  it('refuses the same registry_version twice with 409 VERSION_NOT_INCREASING', async () => {
    expect((await release('1.0.0')).statusCode).toBe(200);
    refused(await release('1.0.0'), 409, 'VERSION_NOT_INCREASING');
  });

  it('refuses a lower registry_version with 409 VERSION_NOT_INCREASING', async () => {
    expect((await release('2.0.0')).statusCode).toBe(200);
    refused(await release('1.9.9'), 409, 'VERSION_NOT_INCREASING');
  });

  it('refuses a prerelease of the current version (semver orders it lower)', async () => {
    expect((await release('2.0.0')).statusCode).toBe(200);
    refused(await release('2.0.0-rc.1'), 409, 'VERSION_NOT_INCREASING');
  });

  it('refuses a version that is not strict semver with 400 INVALID_VERSION', async () => {
    refused(await release('v1.0'), 400, 'INVALID_VERSION');
  });

  it('refuses a ".." name with 400 UNSAFE_NAME and stores nothing', async () => {
    refused(await release('1.0.0', ['../evil']), 400, 'UNSAFE_NAME');
    expect(built.modules.updates.api.currentRelease()?.manifest.registry_version).toBe('0.0.0');
  });

  it('refuses an absolute name with 400 UNSAFE_NAME', async () => {
    refused(await release('1.0.0', ['/etc/x']), 400, 'UNSAFE_NAME');
  });

  it('refuses a backslash name with 400 UNSAFE_NAME', async () => {
    refused(await release('1.0.0', ['a\\b']), 400, 'UNSAFE_NAME');
  });

  it('refuses duplicate names with 400 DUPLICATE_NAME', async () => {
    refused(await release('1.0.0', ['a', 'a']), 400, 'DUPLICATE_NAME');
  });

  it('refuses names that differ only by case with 400 DUPLICATE_NAME', async () => {
    refused(await release('1.0.0', ['A', 'a']), 400, 'DUPLICATE_NAME');
  });

  it('refuses content that is not base64 with 400 INVALID_BASE64', async () => {
    const res = await postJson(built.app, '/api/dev/releases', {
      registry_version: '1.0.0',
      artifacts: [{ name: 'a', content_base64: '!!' }],
    });
    refused(res, 400, 'INVALID_BASE64');
  });

  it('refuses an unknown field with 400 UNKNOWN_FIELD', async () => {
    refused(await release('1.0.0', ['a'], { channel: 'beta' }), 400, 'UNKNOWN_FIELD');
  });

  it('refuses a file: artifact_base_url with 400 INVALID_ARTIFACT_BASE_URL', async () => {
    const res = await release('1.0.0', ['a'], { artifact_base_url: 'file:///tmp' });
    refused(res, 400, 'INVALID_ARTIFACT_BASE_URL');
  });

  it('refuses expires_in_s of 0 with 400 INVALID_EXPIRY', async () => {
    refused(await release('1.0.0', ['a'], { expires_in_s: 0 }), 400, 'INVALID_EXPIRY');
  });

  it('serialises concurrent publishes: exactly one of two equal versions wins', async () => {
    const [a, b] = await Promise.all([release('3.0.0'), release('3.0.0')]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
  });
});
