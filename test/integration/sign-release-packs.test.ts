/**
 * Packs of releases signed offline, through the real command line (docs/PROTOCOL.md §2.7.8,
 * §2.8): the release key is away from the data directory, `sign-release` signs the table of
 * packs (and the same table in the TUF targets it writes), `publish --bundle` builds the packs
 * (and writes them into the static tree of those targets), and a client of src/core installs
 * from nginx in a few range requests. The next release, signed with `--previous-bundle`,
 * keeps the first one's packs: 12 changed files come in at most 3 requests.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeFromJson, parseRelease, tuf, type ManifestArtifact } from '#protocol';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { DEFAULT_OPTIONS } from '#server/compose/options.js';
import { ServerClock } from '#server/platform/clock.js';
import { createRandom } from '#server/platform/random.js';
import { openUpdateState } from '#server/updates/update-state.js';
import { startNginx, type Nginx } from '#test/nginx.js';
import { runCli as runServerCli } from '#test/server-harness.js';
import { bytesOf, tempDirs, updateOnce, type UpdaterServer } from '#test/updater-harness.js';

const COUNT = 400;
const dirs = tempDirs();
let nginx: Nginx;
let work: string;
let dataDir: string;
let releaseKey: string;
let server: RunningServer | undefined;

beforeAll(async () => {
  work = await dirs.make('sign-release-packs-');
  nginx = await startNginx(await dirs.make('sign-release-packs-www-'));
  dataDir = join(work, 'data');
  // The data directory's keys and TUF root 1 (offline targets need a root to be checked
  // against), then the release key goes offline (production).
  const state = await openUpdateState({
    dataDir,
    options: { ...DEFAULT_OPTIONS, dataDir },
    clock: new ServerClock(),
    random: createRandom(undefined),
  });
  await state.tuf.update();
  releaseKey = join(work, 'release-key.json');
  await rename(join(dataDir, 'release-key.json'), releaseKey);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await nginx.stop();
  await dirs.cleanup();
});

/** Writes release `name`: COUNT small files, those in `changed` with other bytes. */
async function build(name: string, changed: ReadonlySet<number> = new Set()): Promise<string> {
  const root = join(work, name);
  await mkdir(join(root, 'lib'), { recursive: true });
  for (let i = 0; i < COUNT; i++) {
    const size = 8192 + ((i * 37) % 8192);
    const bytes = changed.has(i) ? bytesOf(size, 50_000 + i) : bytesOf(size, i);
    await writeFile(join(root, 'lib', `m${String(i).padStart(4, '0')}.js`), bytes);
  }
  return root;
}

async function cli(args: string[]): Promise<Record<string, unknown>> {
  const out = await runServerCli(args, 60_000);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
}

const artifactsOf = async (bundle: string): Promise<readonly ManifestArtifact[]> =>
  parseRelease(envelopeFromJson(JSON.parse(await readFile(bundle, 'utf8')), 'bundle').payload)
    .artifacts;

const packsOf = (artifacts: readonly ManifestArtifact[]): Set<string> =>
  new Set(artifacts.flatMap((a) => (a.pack === undefined ? [] : [a.pack.sha256])));

/** Every blob of the data directory, flat under nginx's /cdn/ (docs/SERVER.md). */
async function mirrorBlobs(): Promise<void> {
  const to = join(nginx.root, 'cdn');
  await mkdir(to, { recursive: true });
  for (const prefix of await readdir(join(dataDir, 'blobs'))) {
    if (prefix.length !== 2) continue;
    for (const sha of await readdir(join(dataDir, 'blobs', prefix))) {
      await copyFile(join(dataDir, 'blobs', prefix, sha), join(to, sha));
    }
  }
}

async function nginxSince(from: number): Promise<string[]> {
  return (await nginx.accessLog()).slice(from).map((r) => `${r.status} ${r.uri} ${r.range}`);
}

async function registry(): Promise<UpdaterServer> {
  server ??= await startServer({ dataDir, simulate: false });
  const { machine_key } = await server.updates.mintMachineKey();
  return { baseUrl: server.url, machineKey: machine_key, pubkeyHex: server.nodePubkey };
}

async function waitForRelease(version: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (server?.updates.currentRelease()?.manifest.registry_version !== version) {
    if (Date.now() > until) throw new Error(`the server never served ${version}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('sign-release with packs, published as a bundle', () => {
  it('installs in a few range requests, then 12 changed files in at most 3', async () => {
    const base = `${nginx.baseUrl}/cdn`;
    const reg = await registry();
    const v1 = await build('v1');
    const bundle1 = join(work, 'release-1.0.0.json');
    const targets = join(work, 'targets.json');
    await cli([
      'sign-release',
      '--release-key',
      releaseKey,
      '--version',
      '1.0.0',
      '--artifact-base-url',
      base,
      '--out',
      bundle1,
      '--tuf-targets',
      targets,
      '--tuf-targets-version',
      '7',
      v1,
    ]);
    const signed1 = await artifactsOf(bundle1);
    expect(signed1.every((a) => a.pack?.url.startsWith(`${base}/`))).toBe(true);
    const packs1 = packsOf(signed1);
    expect(packs1.size).toBe(2);
    // The TUF targets carry the same table (docs/PROTOCOL.md §TUF repository, Custom fields).
    const signedTargets = tuf.parseStrictJson(await readFile(targets)) as {
      signed: { custom: { packs: unknown[] }; targets: Record<string, { custom?: object }> };
    };
    const rows = signedTargets.signed.custom.packs as { sha256: string }[];
    expect(new Set(rows.map((r) => r.sha256))).toEqual(packs1);
    for (const a of signed1) {
      const ref = a.pack as NonNullable<ManifestArtifact['pack']>;
      expect(signedTargets.signed.targets[a.name]?.custom).toEqual({
        pack: rows.findIndex((r) => r.sha256 === ref.sha256),
        pack_offset: ref.offset,
      });
    }

    // The targets signed offline go in with the bundle; the static tree then holds the packs.
    const tree = join(work, 'static');
    const published = await cli([
      'publish',
      '--data-dir',
      dataDir,
      '--bundle',
      bundle1,
      '--tuf-targets',
      targets,
      '--static-out',
      tree,
      v1,
    ]);
    expect(published['static_out']).toMatchObject({ packs: packs1.size });
    for (const sha of packs1) {
      const bytes = await readFile(join(tree, 'api', 'updates', 'artifacts', sha));
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(sha);
    }
    await mirrorBlobs();
    await waitForRelease('1.0.0');
    const dir = await dirs.make('sign-release-packs-client-');
    const before = (await nginx.accessLog()).length;
    expect((await updateOnce(reg, dir)).outcome).toBe('applied');
    const fresh = await nginxSince(before);
    expect(fresh.every((r) => r.startsWith('206 '))).toBe(true);
    expect(fresh.length).toBeLessThanOrEqual(packs1.size);
    expect(await readFile(join(dir, 'current', 'lib', 'm0042.js'))).toEqual(
      await readFile(join(v1, 'lib', 'm0042.js')),
    );

    const changed = new Set(Array.from({ length: 12 }, (_, k) => 5 + k * 33));
    const v2 = await build('v2', changed);
    const bundle2 = join(work, 'release-1.1.0.json');
    await cli([
      'sign-release',
      '--release-key',
      releaseKey,
      '--version',
      '1.1.0',
      '--artifact-base-url',
      base,
      '--previous-bundle',
      bundle1,
      '--out',
      bundle2,
      v2,
    ]);
    const signed2 = await artifactsOf(bundle2);
    const kept = signed2.filter((a, i) => a.pack?.sha256 === signed1[i]?.pack?.sha256);
    expect(kept).toHaveLength(COUNT - changed.size);
    await cli(['publish', '--data-dir', dataDir, '--bundle', bundle2, v2]);
    await mirrorBlobs();
    await waitForRelease('1.1.0');
    const mid = (await nginx.accessLog()).length;
    expect((await updateOnce(reg, dir)).outcome).toBe('applied');
    expect((await nginxSince(mid)).length).toBeLessThanOrEqual(3);
    expect(await readFile(join(dir, 'current', 'lib', 'm0005.js'))).toEqual(
      await readFile(join(v2, 'lib', 'm0005.js')),
    );
    // Four CLI processes (each a tsx start-up) and two installs: about 15 s on a quiet machine.
  }, 180_000);
});
