/**
 * The key commands on the command line (docs/PROTOCOL.md §2.7.8), as an operator runs them:
 * keys moved offline, a release signed away from the server and published as a bundle, the
 * freshness key rotated, and a server with only the freshness key serving the result.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '#test/answer-check.js';
import { runCli, spawnCli } from '#test/server-harness.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'server-trust-cli-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const json = (text: string): Record<string, unknown> =>
  JSON.parse(text.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;

describe('sign-release, publish --bundle and rotate-keys on the command line', () => {
  it('runs a production server with the root and release keys offline', async () => {
    const dataDir = join(work, 'data');
    const offline = join(work, 'offline');
    const build = join(work, 'build');
    await mkdir(offline, { recursive: true });
    await mkdir(build, { recursive: true });
    await writeFile(join(build, 'app.txt'), 'version one');

    // First start creates the keys and key set 1; then the root and release keys go offline.
    const init = await runCli([
      'publish',
      '--data-dir',
      dataDir,
      '--init',
      '--version',
      '0.1.0',
      build,
    ]);
    expect(init.code).toBe(0);
    const nodePubkey = json(init.stdout)['node_pubkey'] as string;
    await rename(join(dataDir, 'node-key.json'), join(offline, 'node-key.json'));
    await rename(join(dataDir, 'release-key.json'), join(offline, 'release-key.json'));

    const bundle = join(offline, 'release-1.0.0.json');
    const signed = await runCli([
      'sign-release',
      '--release-key',
      join(offline, 'release-key.json'),
      '--version',
      '1.0.0',
      '--out',
      bundle,
      build,
    ]);
    expect(signed.code).toBe(0);
    expect(json(signed.stdout)).toMatchObject({ ok: true, registry_version: '1.0.0' });

    const unsigned = await runCli(['publish', '--data-dir', dataDir, '--version', '1.0.1', build]);
    expect(unsigned.code).toBe(1);
    expect(json(unsigned.stderr)).toMatchObject({ code: 'RELEASE_KEY_MISSING' });

    const published = await runCli(['publish', '--data-dir', dataDir, '--bundle', bundle, build]);
    expect(published.code).toBe(0);
    expect(json(published.stdout)).toMatchObject({
      registry_version: '1.0.0',
      release_sha256: json(signed.stdout)['release_sha256'],
    });

    const rotated = await runCli([
      'rotate-keys',
      '--data-dir',
      dataDir,
      '--root-key',
      join(offline, 'node-key.json'),
      '--new-freshness-key',
    ]);
    expect(rotated.code).toBe(0);
    expect(json(rotated.stdout)).toMatchObject({ ok: true, version: 2 });

    const cli = await spawnCli(['--port', '0', '--data-dir', dataDir, '--simulate', 'off']);
    try {
      expect(cli.first.node_pubkey).toBe(nodePubkey);
      const mint = await fetch(`${cli.first.url}/api/demo-key/mint`, { method: 'POST' });
      const key = ((await mint.json()) as { machine_key: string }).machine_key;
      const res = await fetch(`${cli.first.url}/api/updates/manifest`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const bytes = new Uint8Array(await res.arrayBuffer());
      const checked = checkAnswer(bytes, nodePubkey, Date.now());
      expect(checked.release.registry_version).toBe('1.0.0');
      expect(checked.keySet.version).toBe(2);
      // No node key in the data directory: no format 1 envelope either.
      expect(JSON.parse(new TextDecoder().decode(bytes))).not.toHaveProperty('payload');
    } finally {
      await cli.stop('SIGTERM');
    }
    // Six CLI processes one after another (each a tsx start-up): about 8 s on a quiet machine,
    // over 30 s on a loaded one.
  }, 120_000);

  it('refuses a bundle file that is not JSON (INVALID_BUNDLE)', async () => {
    const bad = join(work, 'bad.json');
    await writeFile(bad, 'not json');
    const out = await runCli([
      'publish',
      '--data-dir',
      join(work, 'd2'),
      '--init',
      '--bundle',
      bad,
      work,
    ]);
    expect(out.code).toBe(1);
    expect(json(out.stderr)).toMatchObject({ code: 'INVALID_BUNDLE' });
  });
});
