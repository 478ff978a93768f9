// A QA team's first test against the installed package, run with `node --test` inside a scratch
// project outside the repository (test/integration/server-package.test.ts copies it there).
// Plain JavaScript, only the package's public entry: what a newcomer would write.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { startServer, UpdateError, verifyAnswer, verifyManifest } from 'verified-updater-server';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const b64url = (bytes) => Buffer.from(bytes).toString('base64url');

test('start, mint, publish, fetch the signed manifest and verify it with the exported verifier', async () => {
  const server = await startServer({ dev: true, simulate: false });
  try {
    const mint = await fetch(`${server.url}/api/demo-key/mint`, { method: 'POST' });
    const { machine_key } = await mint.json();
    const hello = new TextEncoder().encode('hello from QA\n');
    await server.publish({
      registry_version: '1.0.0',
      artifacts: [{ name: 'app/hello.txt', content: hello }],
    });
    const res = await fetch(`${server.url}/api/updates/manifest`, {
      headers: { authorization: `Bearer ${machine_key}` },
    });
    assert.equal(res.status, 200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const { manifest } = verifyManifest(bytes, server.nodePubkey);
    assert.equal(manifest.registry_version, '1.0.0');
    assert.deepEqual(
      manifest.artifacts.map((a) => [a.name, a.sha256, a.size]),
      [['app/hello.txt', sha256(hello), hello.length]],
    );
    const whole = verifyAnswer(bytes, server.nodePubkey);
    assert.equal(whole.format, 2);
    assert.equal(whole.manifest.registry_version, '1.0.0');
    assert.throws(
      () => verifyManifest(bytes, randomBytes(32).toString('hex')),
      (error) => error instanceof UpdateError && error.code === 'UNKNOWN_KEY',
    );
  } finally {
    await server.close();
  }
});

test('an OAuth authorization code flow with PKCE, as a public client', async () => {
  const server = await startServer({ dev: true, simulate: false });
  try {
    const verifier = b64url(randomBytes(32));
    const redirect = 'http://127.0.0.1:53682/callback';
    const authorize = new URL(`${server.url}/api/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: 'desktop-app',
      redirect_uri: redirect,
      code_challenge: b64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
      scope: 'openid profile',
      state: 's1',
      nonce: 'n1',
      login_hint: 'alice',
    })) {
      authorize.searchParams.set(k, v);
    }
    const approved = await fetch(authorize, { redirect: 'manual' });
    assert.equal(approved.status, 302);
    const location = new URL(approved.headers.get('location'));
    assert.equal(location.searchParams.get('state'), 's1');
    const token = await fetch(`${server.url}/api/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: 'desktop-app',
        code: location.searchParams.get('code'),
        redirect_uri: redirect,
        code_verifier: verifier,
      }),
    });
    assert.equal(token.status, 200);
    const tokens = await token.json();
    assert.equal(tokens.token_type, 'Bearer');
    const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString());
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.nonce, 'n1');
  } finally {
    await server.close();
  }
});
