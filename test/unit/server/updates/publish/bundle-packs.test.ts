/**
 * The table of packs of a bundle signed offline (docs/PROTOCOL.md §2.7.8, §2.8): the server
 * builds each new pack from the members' bytes, checks a kept pack it holds, and refuses with
 * ARTIFACT_MISMATCH (naming the pack) a table it cannot reproduce, storing nothing.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  encodeRelease,
  RELEASE_PAYLOAD_TYPE,
  signDsse,
  type ManifestArtifact,
  type PackRef,
  type Release,
} from '#protocol';
import { DEFAULT_OPTIONS } from '#server/compose/options.js';
import { ServerClock } from '#server/platform/clock.js';
import { createRandom } from '#server/platform/random.js';
import { heldKey } from '#server/updates/keys/trust-keys.js';
import { offlinePacking } from '#server/updates/publish/offline-packs.js';
import { Publisher, PUBLISH_LOCK_FILE } from '#server/updates/publish/publisher.js';
import { listFolder } from '#server/updates/publish/publish-folder.js';
import { buildRelease, hashArtifact } from '#server/updates/publish/release-builder.js';
import { openUpdateState } from '#server/updates/update-state.js';
import { refusalOfAsync, type Refusal } from '#test/expect-code.js';

const random = createRandom(undefined);
let dir: string;
let work: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bundle-packs-'));
  work = await mkdtemp(join(tmpdir(), 'bundle-packs-work-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

type UpdateState = Awaited<ReturnType<typeof openUpdateState>>;

const open = () =>
  openUpdateState({
    dataDir: dir,
    options: { ...DEFAULT_OPTIONS, dataDir: dir },
    clock: new ServerClock(() => Date.parse('2026-01-01T00:00:00Z')),
    random,
  });

/** A folder of `count` small files; `changed` of them get other bytes (seed `seed`). */
async function folder(name: string, count: number, changed: ReadonlySet<number> = new Set()) {
  const root = join(work, name);
  await mkdir(root, { recursive: true });
  for (let i = 0; i < count; i++) {
    const text = `${changed.has(i) ? 'changed' : 'file'} ${i} `.repeat(40 + i);
    await writeFile(join(root, `m${String(i).padStart(3, '0')}.js`), text);
  }
  return root;
}

/** The release sign-release would sign for `root` (its table of packs included). */
async function planned(version: string, root: string, previous?: readonly ManifestArtifact[]) {
  const { put, pack } = offlinePacking(hashArtifact, previous);
  const artifacts = await listFolder(root);
  return (await buildRelease({ registry_version: version, artifacts }, put, pack)).release;
}

async function bundleOf(release: Release) {
  const key = await heldKey('.', join(dir, 'release-key.json'), random, false);
  if (key === undefined) throw new Error('no release key');
  return signDsse(encodeRelease(release), RELEASE_PAYLOAD_TYPE, [key]);
}

/** Every file under the blob store (the digests, and any temporary file). */
async function blobFiles(): Promise<string[]> {
  const entries = await readdir(join(dir, 'blobs'), { recursive: true, withFileTypes: true }).catch(
    () => [],
  );
  return entries
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

/** `release` with each member of pack `sha256` changed by `edit`. */
function forged(release: Release, sha256: string, edit: (ref: PackRef) => PackRef): Release {
  return {
    ...release,
    artifacts: release.artifacts.map((a) =>
      a.pack?.sha256 === sha256 ? { ...a, pack: edit(a.pack) } : a,
    ),
  };
}

/** `release` with the member at `index` said to start `delta` bytes off its real offset. */
function shifted(release: Release, index: number, delta: number): Release {
  return {
    ...release,
    artifacts: release.artifacts.map((a, i) =>
      i === index && a.pack !== undefined
        ? { ...a, pack: { ...a.pack, offset: a.pack.offset + delta } }
        : a,
    ),
  };
}

/** The refusal of publishing `release` signed with the files of `root`. */
async function refused(state: UpdateState, release: Release, root: string): Promise<Refusal> {
  const bundle = await bundleOf(release);
  return refusalOfAsync(state.publisher.publish({ bundle, artifacts: await listFolder(root) }));
}

const packsOf = (release: Release): string[] => [
  ...new Set(release.artifacts.flatMap((a) => (a.pack === undefined ? [] : [a.pack.sha256]))),
];
const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('publishing a bundle with a table of packs', () => {
  it('builds each new pack from the members, the plain concatenation in signed order', async () => {
    const state = await open();
    const root = await folder('v1', 30);
    const release = await planned('1.0.0', root);
    const [pack] = packsOf(release);
    expect(pack).toBeDefined();
    await state.publisher.publish({
      bundle: await bundleOf(release),
      artifacts: await listFolder(root),
    });
    const stored = await readFile(state.blobs.pathOf(pack as string));
    expect(sha256Of(stored)).toBe(pack);
    for (const a of release.artifacts) {
      const ref = a.pack as PackRef;
      expect(sha256Of(stored.subarray(ref.offset, ref.offset + a.size))).toBe(a.sha256);
    }
    expect(state.releases.current?.manifest.artifacts).toEqual(release.artifacts);
  });

  it('accepts a second release that keeps the packs of the first it holds', async () => {
    const state = await open();
    const v1 = await planned('1.0.0', await folder('v1', 30));
    await state.publisher.publish({
      bundle: await bundleOf(v1),
      artifacts: await listFolder(join(work, 'v1')),
    });
    const root = await folder('v2', 30, new Set([3, 17]));
    const v2 = await planned('1.1.0', root, v1.artifacts);
    const kept = v2.artifacts.filter((a) => a.pack?.sha256 === packsOf(v1)[0]);
    expect(kept).toHaveLength(28);
    await state.publisher.publish({
      bundle: await bundleOf(v2),
      artifacts: await listFolder(root),
    });
    expect(state.releases.current?.manifest.registry_version).toBe('1.1.0');
    // The pack of the two changed files was built here; the kept one is still held.
    expect(packsOf(v2)).toHaveLength(2);
    for (const pack of packsOf(v2)) {
      expect(sha256Of(await readFile(state.blobs.pathOf(pack)))).toBe(pack);
    }
  });

  it('refuses a member at a wrong offset (ARTIFACT_MISMATCH naming the pack), storing nothing', async () => {
    const state = await open();
    const root = await folder('v1', 30);
    const release = await planned('1.0.0', root);
    const pack = packsOf(release)[0] as string;
    const bad = shifted(release, 4, 1);
    const before = await blobFiles();
    const refusal = await refused(state, bad, root);
    expect(refusal.code).toBe('ARTIFACT_MISMATCH');
    expect(refusal.message).toContain(pack);
    expect(await blobFiles()).toEqual(before);
    expect(state.releases.current?.manifest.registry_version).toBe('0.0.0');
  });

  it('refuses a pack whose signed digest its members do not make, storing nothing', async () => {
    const state = await open();
    const root = await folder('v1', 30);
    const release = await planned('1.0.0', root);
    const pack = packsOf(release)[0] as string;
    const wrong = 'ab'.repeat(32);
    const bad = forged(release, pack, (ref) => ({ ...ref, sha256: wrong }));
    const before = await blobFiles();
    const refusal = await refused(state, bad, root);
    expect(refusal.code).toBe('ARTIFACT_MISMATCH');
    expect(refusal.message).toContain(wrong);
    expect(await blobFiles()).toEqual(before);
  });

  it('refuses a pack size that leaves bytes no member fills, storing nothing', async () => {
    const state = await open();
    const root = await folder('v1', 30);
    const release = await planned('1.0.0', root);
    const pack = packsOf(release)[0] as string;
    const bad = forged(release, pack, (ref) => ({ ...ref, size: ref.size + 10 }));
    const before = await blobFiles();
    const refusal = await refused(state, bad, root);
    expect(refusal.code).toBe('ARTIFACT_MISMATCH');
    expect(refusal.message).toContain(pack);
    expect(await blobFiles()).toEqual(before);
  });

  it('refuses a kept pack the server does not hold, storing nothing', async () => {
    const state = await open();
    // 1.0.0 is signed but never published here: its packs are not held.
    const v1 = await planned('1.0.0', await folder('v1', 30));
    const root = await folder('v2', 30, new Set([3]));
    const v2 = await planned('1.1.0', root, v1.artifacts);
    const before = await blobFiles();
    const refusal = await refused(state, v2, root);
    expect(refusal.code).toBe('ARTIFACT_MISMATCH');
    expect(refusal.message).toContain(`${packsOf(v1)[0] ?? ''} of the signed table is not stored`);
    expect(await blobFiles()).toEqual(before);
  });

  it('refuses a held pack that does not hold the member at its signed offset', async () => {
    const state = await open();
    const v1 = await planned('1.0.0', await folder('v1', 30));
    await state.publisher.publish({
      bundle: await bundleOf(v1),
      artifacts: await listFolder(join(work, 'v1')),
    });
    const root = await folder('v2', 30, new Set([3]));
    const v2 = await planned('1.1.0', root, v1.artifacts);
    const pack = packsOf(v1)[0] as string;
    const index = v2.artifacts.findIndex((a) => a.pack?.sha256 === pack && a.pack.offset > 0);
    const bad = shifted(v2, index, -1);
    const before = await blobFiles();
    const refusal = await refused(state, bad, root);
    expect(refusal.code).toBe('ARTIFACT_MISMATCH');
    expect(refusal.message).toContain(`${pack} of the signed table does not hold`);
    expect(await blobFiles()).toEqual(before);
    expect(state.releases.current?.manifest.registry_version).toBe('1.0.0');
  });

  it('removes the packs it built when the publish fails after them (the failed-publish sweep)', async () => {
    const state = await open();
    const root = await folder('v1', 30);
    const release = await planned('1.0.0', root);
    // The release store refuses to save: the packs are built by then, and must go again.
    const releases = new Proxy(state.releases, {
      get: (target, key) => {
        if (key === 'save') return () => Promise.reject(new Error('disk full'));
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const publisher = new Publisher({
      keys: state.trust,
      releases,
      blobs: state.blobs,
      clock: new ServerClock(),
      freshen: () => Promise.reject(new Error('not reached')),
      lockPath: join(dir, PUBLISH_LOCK_FILE),
    });
    const before = await blobFiles();
    const bundle = await bundleOf(release);
    const artifacts = await listFolder(root);
    await expect(publisher.publish({ bundle, artifacts })).rejects.toThrow('disk full');
    expect(await blobFiles()).toEqual(before);
    expect(await state.blobs.sizeOf(packsOf(release)[0] as string)).toBeUndefined();
  });
});
