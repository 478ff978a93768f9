/**
 * The state directory cannot be turned against its owner (docs/SECURITY.md §8): entries
 * planted inside DIR before a run (symbolic links to an existing file, an existing directory,
 * or nothing; a blob rewritten with its mtime set back) never make the updater read or write
 * outside DIR. One named test per planted case, each asserting:
 * - nothing outside DIR changed (a snapshot of the sibling directory the links point into);
 * - a clear refusal (STATE_UNSAFE naming the planted path) or a correct install;
 * - DIR/current intact: unchanged after a refusal, exactly the new release after an install.
 */
import {
  chmod,
  lutimes,
  mkdir,
  open as openFile,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UpdaterApi, UpdateResult } from '#core/updater-api.js';
import { createNodeUpdater } from '#node/create-updater.js';
import { FileStore } from '#node/store/file-store.js';
import { BLOB_MTIME_S } from '#node/blobs/intact-blob.js';
import { filesOf, snapshotTree, type TreeSnapshot } from '#test/tree-snapshot.js';
import { sha256Hex, text, type ReleaseFile } from '#test/fakes.js';
import { startLocalRegistry, type LocalRegistry } from '#test/local-registry.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
let registry: LocalRegistry;

beforeAll(async () => {
  registry = await startLocalRegistry();
});
afterAll(() => registry.close());
afterEach(() => dirs.cleanup());

const SHARED = new Uint8Array(50_000).fill(7);
const V1: ReleaseFile[] = [
  { name: 'app.bin', content: SHARED },
  { name: 'readme.txt', content: text('version one') },
];
/** Reuses app.bin's blob (held, linked into DIR/current) and brings a new file. */
const NEW = text('brand new file of version two');
const V2: ReleaseFile[] = [
  { name: 'app.bin', content: SHARED },
  { name: 'readme.txt', content: text('version two') },
  { name: 'new.txt', content: NEW },
];
const NEW_SHA = sha256Hex(NEW);
const SHARED_SHA = sha256Hex(SHARED);

interface Layout {
  /** DIR. */
  readonly dir: string;
  /** DIR/.updater. */
  readonly meta: string;
  /** The sibling directory the links point into: file, dir/keep, and the name missing. */
  readonly outside: string;
}

async function openUpdater(dir: string): Promise<UpdaterApi> {
  return createNodeUpdater({
    baseUrl: registry.baseUrl,
    machineKey: registry.machineKey,
    pubkeys: [registry.pubkeyHex],
    dir,
    limits: { retries: 1, stallTimeoutMs: 2000 },
  });
}

/** DIR with version 1 installed, and the outside directory beside it. */
async function installedV1(): Promise<Layout> {
  const root = await dirs.make();
  const dir = join(root, 'DIR');
  const outside = join(root, 'outside');
  await mkdir(join(outside, 'dir'), { recursive: true });
  await writeFile(join(outside, 'file'), 'precious, not the updater’s');
  await writeFile(join(outside, 'dir', 'keep'), 'keep me');
  registry.publish('1.0.0', V1);
  const updater = await openUpdater(dir);
  try {
    expect((await updater.update()).version).toBe('1.0.0');
  } finally {
    await updater.close();
  }
  return { dir, meta: join(dir, '.updater'), outside };
}

type Target = 'file' | 'dir' | 'dangling';
const TARGETS: readonly Target[] = ['file', 'dir', 'dangling'];

function targetPath(layout: Layout, target: Target): string {
  return join(layout.outside, target === 'dangling' ? 'missing' : target);
}

/** Replaces `path` (moved aside inside DIR if it exists) with a link to the target. */
async function plantLink(path: string, to: string): Promise<void> {
  await rename(path, `${path}-moved-aside`).catch(() => undefined);
  await symlink(to, path);
}

interface Outcome {
  readonly result?: UpdateResult;
  readonly error?: { code: string; message: string };
}

/** Publishes version 2 and runs one update in a fresh updater (a restart). */
async function runUpdate(dir: string): Promise<Outcome> {
  registry.publish('2.0.0', V2);
  let updater: UpdaterApi | undefined;
  try {
    updater = await openUpdater(dir);
    return { result: await updater.update() };
  } catch (error) {
    return { error: error as { code: string; message: string } };
  } finally {
    await updater?.close();
  }
}

const expectedV2 = Object.fromEntries(V2.map((f) => [f.name, sha256Hex(f.content)]));

/**
 * The three assertions of every case. `refusal`: the planted path the STATE_UNSAFE message must
 * name; undefined: the update must install version 2 correctly.
 */
async function check(
  layout: Layout,
  before: { outside: TreeSnapshot; current: TreeSnapshot },
  outcome: Outcome,
  refusal: string | undefined,
): Promise<void> {
  expect(await snapshotTree(layout.outside)).toEqual(before.outside);
  const current = await snapshotTree(join(layout.dir, 'current'));
  if (refusal !== undefined) {
    expect(outcome.error).toMatchObject({ code: 'STATE_UNSAFE' });
    expect(outcome.error?.message).toContain(refusal);
    expect(current).toEqual(before.current);
  } else {
    expect(outcome.error).toBeUndefined();
    expect(outcome.result).toMatchObject({ outcome: 'applied', version: '2.0.0' });
    expect(filesOf(current)).toEqual(expectedV2);
  }
}

async function snapshots(
  layout: Layout,
): Promise<{ outside: TreeSnapshot; current: TreeSnapshot }> {
  return {
    outside: await snapshotTree(layout.outside),
    current: await snapshotTree(join(layout.dir, 'current')),
  };
}

/**
 * A planted link case: `at` the path inside DIR, given the layout. `replaced`: the updater
 * never reads through that name, it only replaces it (rename over the link): a correct
 * install, the link gone, its target untouched.
 */
function linkCase(name: string, at: (layout: Layout) => string, replaced = false): void {
  for (const target of TARGETS) {
    const to = target === 'dangling' ? 'a dangling target' : `an existing ${target}`;
    const outcome = replaced ? 'replaced, never followed' : 'STATE_UNSAFE';
    it(`${name} → ${to}: ${outcome}, nothing outside changes`, async () => {
      const layout = await installedV1();
      const path = at(layout);
      await mkdir(join(path, '..'), { recursive: true });
      await plantLink(path, targetPath(layout, target));
      const before = await snapshots(layout);
      await check(layout, before, await runUpdate(layout.dir), replaced ? undefined : path);
    });
  }
}

describe('planted links inside the state directory are refused, never followed', () => {
  linkCase('.updater', (l) => l.meta);
  for (const sub of ['blobs', 'sets', 'manifests', 'partial', 'chunks', 'verified']) {
    linkCase(`.updater/${sub}`, (l) => join(l.meta, sub));
  }
  for (const file of ['audit.log', 'state.json', 'journal.json', 'lock']) {
    linkCase(`.updater/${file}`, (l) => join(l.meta, file));
  }
  linkCase('.updater/partial/<sha>.part', (l) => join(l.meta, 'partial', `${NEW_SHA}.part`));
  linkCase('.updater/partial/<sha>.meta', (l) => join(l.meta, 'partial', `${NEW_SHA}.meta`), true);
  linkCase('.updater/blobs/<sha> (a blob the update needs)', (l) => join(l.meta, 'blobs', NEW_SHA));
  linkCase('.updater/manifests/<setId>.json', (l) =>
    join(l.meta, 'manifests', `${'a'.repeat(64)}.json`),
  );
  linkCase('.updater/sets/<dir>', (l) => join(l.meta, 'sets', 'b'.repeat(64)));
  linkCase('.updater/verified/<sha> (a per-blob facts file of older versions)', (l) =>
    join(l.meta, 'verified', SHARED_SHA),
  );
  linkCase('.updater/verified/facts.json', (l) => join(l.meta, 'verified', 'facts.json'));

  it('.updater/blobs/<sha> → an outside copy of the right bytes, link and target given the sentinel mtime: STATE_UNSAFE', async () => {
    const layout = await installedV1();
    const copy = join(layout.outside, 'dir', 'lookalike');
    await writeFile(copy, NEW);
    await utimes(copy, BLOB_MTIME_S, BLOB_MTIME_S);
    const path = join(layout.meta, 'blobs', NEW_SHA);
    await symlink(copy, path);
    await lutimes(path, BLOB_MTIME_S, BLOB_MTIME_S);
    const before = await snapshots(layout);
    await check(layout, before, await runUpdate(layout.dir), path);
  });
});

/** Rewrites `path` in place with same-size other bytes, then sets mode and mtime back. */
async function rewriteInPlace(path: string): Promise<void> {
  const { size } = await stat(path);
  await chmod(path, 0o644);
  const handle = await openFile(path, 'r+');
  try {
    await handle.write(Buffer.alloc(size, 0x41), 0, size, 0);
  } finally {
    await handle.close();
  }
  await chmod(path, 0o444);
  await utimes(path, BLOB_MTIME_S, BLOB_MTIME_S);
}

describe('a held blob is trusted only while the facts recorded at verification hold', () => {
  it('a held blob (not yet installed) rewritten in place with its mtime reset is fetched again, not installed', async () => {
    const layout = await installedV1();
    // Version 2's new file is already held (a pull that was not committed).
    const store = await FileStore.open(layout.dir);
    const partial = await store.openPartial(NEW_SHA, NEW.length);
    await partial.write(NEW);
    await partial.complete();
    await store.settleBlobs(); // promoted behind the download (seal-queue.ts)
    const blob = join(layout.meta, 'blobs', NEW_SHA);
    await rewriteInPlace(blob);
    expect((await stat(blob)).mtimeMs).toBe(BLOB_MTIME_S * 1000); // the old check passed
    const before = await snapshots(layout);
    const seen = registry.requests.length;
    await check(layout, before, await runUpdate(layout.dir), undefined);
    expect(registry.requests.slice(seen).some((url) => url.endsWith(NEW_SHA))).toBe(true);
    expect(sha256Hex(await readFile(blob))).toBe(NEW_SHA);
  });

  it('the installed blob (hard-linked into DIR/current) rewritten with its mtime reset is fetched again for the update', async () => {
    const layout = await installedV1();
    const blob = join(layout.meta, 'blobs', SHARED_SHA);
    await rewriteInPlace(blob); // DIR/current/app.bin is the same inode: damaged by the plant
    const before = await snapshots(layout);
    const seen = registry.requests.length;
    await check(layout, before, await runUpdate(layout.dir), undefined);
    expect(registry.requests.slice(seen).some((url) => url.endsWith(SHARED_SHA))).toBe(true);
  });

  it('a held blob replaced by another file (new inode) with the right size and sentinel mtime is fetched again', async () => {
    const layout = await installedV1();
    const blob = join(layout.meta, 'blobs', SHARED_SHA);
    await rm(blob, { force: true });
    await writeFile(blob, Buffer.alloc(SHARED.length, 0x42));
    await chmod(blob, 0o444);
    await utimes(blob, BLOB_MTIME_S, BLOB_MTIME_S);
    const before = await snapshots(layout);
    const seen = registry.requests.length;
    await check(layout, before, await runUpdate(layout.dir), undefined);
    expect(registry.requests.slice(seen).some((url) => url.endsWith(SHARED_SHA))).toBe(true);
  });

  it('a held blob only touched (mtime changed, bytes intact) is re-hashed and reused, not fetched', async () => {
    const layout = await installedV1();
    const blob = join(layout.meta, 'blobs', SHARED_SHA);
    await utimes(blob, 2_000_000_000, 2_000_000_000);
    const before = await snapshots(layout);
    const seen = registry.requests.length;
    await check(layout, before, await runUpdate(layout.dir), undefined);
    expect(registry.requests.slice(seen).some((url) => url.endsWith(SHARED_SHA))).toBe(false);
    expect((await stat(blob)).mtimeMs).toBe(BLOB_MTIME_S * 1000); // sealed again
  });

  it('an untouched held blob is reused without a re-hash and without a fetch', async () => {
    const layout = await installedV1();
    const before = await snapshots(layout);
    const seen = registry.requests.length;
    await check(layout, before, await runUpdate(layout.dir), undefined);
    expect(registry.requests.slice(seen).some((url) => url.endsWith(SHARED_SHA))).toBe(false);
  });
});
