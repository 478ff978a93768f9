/**
 * sign-release (docs/PROTOCOL.md §2.7.8): a bundle signed away from the server, co-signed by a
 * second release key, and published with its files.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServerClock } from '#server/platform/clock.js';
import { DEFAULT_OPTIONS } from '#server/compose/options.js';
import { createRandom } from '#server/platform/random.js';
import { listFolder } from '#server/updates/publish/publish-folder.js';
import { signRelease, type SignReleaseOptions } from '#server/updates/publish/sign-release.js';
import { heldKey } from '#server/updates/keys/trust-keys.js';
import { openUpdateState } from '#server/updates/update-state.js';
import {
  CHUNK_INDEX_MIN_BYTES,
  envelopeFromJson,
  parseRelease,
  RELEASE_PAYLOAD_TYPE,
  roleOf,
  verifyRole,
} from '#protocol';

const random = createRandom(undefined);
let dir: string;
let work: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sign-release-'));
  work = await mkdtemp(join(tmpdir(), 'sign-release-work-'));
  await mkdir(join(work, 'app', 'lib'), { recursive: true });
  await writeFile(join(work, 'app', 'main.js'), 'console.log(1)');
  // Large enough for a chunk index, which the offline signer must compute like the server.
  await writeFile(join(work, 'app', 'lib', 'big.bin'), Buffer.alloc(CHUNK_INDEX_MIN_BYTES + 5, 7));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const open = () =>
  openUpdateState({
    dataDir: dir,
    options: { ...DEFAULT_OPTIONS, dataDir: dir },
    clock: new ServerClock(() => Date.parse('2026-01-01T00:00:00Z')),
    random,
  });
const sign = (options: Partial<SignReleaseOptions>) =>
  signRelease(
    {
      releaseKeyFiles: [],
      out: undefined,
      bundle: undefined,
      version: undefined,
      folder: undefined,
      artifactBaseUrl: undefined,
      ...options,
    },
    random,
  );
/** `count` small files under work/`name`; file `changed` (if any) gets other bytes. */
async function smallFiles(name: string, count: number, changed = -1): Promise<void> {
  await mkdir(join(work, name), { recursive: true });
  for (let i = 0; i < count; i++) {
    const text = `${i === changed ? 'new' : 'old'} ${i} `.repeat(100 + i);
    await writeFile(join(work, name, `f${String(i).padStart(2, '0')}.js`), text);
  }
}
const readBundle = async (file: string): Promise<unknown> =>
  JSON.parse(await readFile(file, 'utf8')) as unknown;

describe('sign-release', () => {
  it('signs a folder offline into a bundle that publish serves as is', async () => {
    await open();
    const bundle = join(work, 'release.json');
    const signed = await sign({
      releaseKeyFiles: [join(dir, 'release-key.json')],
      version: '1.0.0',
      folder: join(work, 'app'),
      out: bundle,
    });
    expect(signed.registry_version).toBe('1.0.0');
    const state = await open();
    const result = await state.publisher.publish({
      bundle: await readBundle(bundle),
      artifacts: await listFolder(join(work, 'app')),
    });
    expect(result.release_sha256).toBe(signed.release_sha256);
    const release = state.releases.current;
    expect(release?.digest).toBe(signed.release_sha256);
    const big = release?.manifest.artifacts.find((a) => a.name === 'lib/big.bin');
    expect(big?.chunk_index).toBeDefined();
  });

  it('adds a second release key to a bundle, meeting a 2-of-2 release role', async () => {
    await open();
    const first = join(dir, 'release-key.json');
    const second = join(work, 'release-2.json');
    await writeFile(second, 'ef'.repeat(32));
    const hexOf = async (file: string) =>
      (await heldKey('.', file, random, false))?.hex ?? 'missing';
    const role = roleOf(2, [await hexOf(first), await hexOf(second)]);
    const bundle = join(work, 'release.json');
    await sign({
      releaseKeyFiles: [first],
      version: '2.0.0',
      folder: join(work, 'app'),
      out: bundle,
    });
    const check = async () =>
      verifyRole(
        envelopeFromJson(await readBundle(bundle), 'bundle'),
        role,
        RELEASE_PAYLOAD_TYPE,
        'bundle',
      );
    await expect(check()).rejects.toMatchObject({ code: 'THRESHOLD_NOT_MET' });
    const cosigned = await sign({ releaseKeyFiles: [second], bundle });
    expect(cosigned.keyids).toHaveLength(2);
    expect(cosigned.registry_version).toBe('2.0.0');
    expect(await check()).toHaveLength(2);
  });

  it('signs the table of packs the server itself would write for the same files', async () => {
    await open();
    await smallFiles('small', 20);
    const bundle = join(work, 'release.json');
    await sign({
      releaseKeyFiles: [join(dir, 'release-key.json')],
      version: '1.0.0',
      folder: join(work, 'small'),
      out: bundle,
    });
    const offline = parseRelease(envelopeFromJson(await readBundle(bundle), 'bundle').payload);
    expect(offline.artifacts.every((a) => a.pack !== undefined)).toBe(true);
    // The server's own signing path, on another data directory, over the same files.
    const other = await mkdtemp(join(tmpdir(), 'sign-release-other-'));
    try {
      const state = await openUpdateState({
        dataDir: other,
        options: { ...DEFAULT_OPTIONS, dataDir: other },
        clock: new ServerClock(() => Date.parse('2026-01-01T00:00:00Z')),
        random,
      });
      const served = await state.publisher.publish({
        registry_version: '1.0.0',
        artifacts: await listFolder(join(work, 'small')),
      });
      expect(served.artifacts).toEqual(offline.artifacts);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('keeps the packs of --previous-bundle; co-signing leaves the table as it is', async () => {
    await open();
    const key = join(dir, 'release-key.json');
    await smallFiles('v1', 20);
    const first = join(work, 'release-1.json');
    await sign({ releaseKeyFiles: [key], version: '1.0.0', folder: join(work, 'v1'), out: first });
    await smallFiles('v2', 20, 7);
    const tableOf = async (file: string) =>
      parseRelease(envelopeFromJson(await readBundle(file), 'bundle').payload).artifacts.map(
        (a) => a.pack,
      );
    const second = join(work, 'release-2.json');
    const fresh = join(work, 'release-2-fresh.json');
    const v2 = { releaseKeyFiles: [key], version: '1.1.0', folder: join(work, 'v2') };
    await sign({ ...v2, previousBundle: first, out: second });
    await sign({ ...v2, out: fresh });
    const before = await tableOf(first);
    const kept = await tableOf(second);
    const afresh = await tableOf(fresh);
    // Only file 7 changed: the other 19 keep their pack and offset; packed afresh, none does.
    const same = (refs: typeof before) =>
      refs.filter(
        (ref, i) => ref?.sha256 === before[i]?.sha256 && ref?.offset === before[i]?.offset,
      );
    expect(same(kept)).toHaveLength(19);
    expect(same(afresh)).toHaveLength(0);
    const payload = ((await readBundle(second)) as { payload: string }).payload;
    await writeFile(join(work, 'second.json'), 'ef'.repeat(32));
    await sign({ releaseKeyFiles: [join(work, 'second.json')], bundle: second });
    expect(((await readBundle(second)) as { payload: string }).payload).toBe(payload);
  });

  it('refuses a --previous-bundle that is not a release bundle (INVALID_BUNDLE)', async () => {
    await open();
    await writeFile(join(work, 'prev.json'), '{"payloadType": "x"}');
    await expect(
      sign({
        releaseKeyFiles: [join(dir, 'release-key.json')],
        version: '1.0.0',
        folder: join(work, 'app'),
        out: join(work, 'o.json'),
        previousBundle: join(work, 'prev.json'),
      }),
    ).rejects.toMatchObject({ code: 'INVALID_BUNDLE' });
  });

  it('refuses a key file that does not exist (BAD_KEY)', async () => {
    await expect(
      sign({
        releaseKeyFiles: [join(work, 'nope.json')],
        version: '1.0.0',
        folder: work,
        out: join(work, 'o.json'),
      }),
    ).rejects.toMatchObject({ code: 'BAD_KEY' });
  });

  it('refuses to co-sign a file that is not a release bundle (INVALID_BUNDLE)', async () => {
    await open();
    const bad = join(work, 'bad.json');
    await writeFile(bad, '{"hello": 1}');
    await expect(
      sign({ releaseKeyFiles: [join(dir, 'release-key.json')], bundle: bad }),
    ).rejects.toMatchObject({ code: 'INVALID_BUNDLE' });
  });
});
