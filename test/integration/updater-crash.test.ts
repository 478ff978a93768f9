/**
 * kill -9 at each durable install step (docs/UPDATER.md §3, docs/UPDATER-PROOF.md §1): the CLI runs as a child process with
 * UPDATER_TEST_CRASH_AT=<step> and SIGKILLs itself right after that step. Then the live set
 * must be the complete old set or the complete new set, never a mix, and the next update
 * completes. Run once per swap strategy (docs/UPDATER.md §2): the DIR/current symlink and the
 * DIR/current.json pointer; the live set is found with resolveCurrentSet either way.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INSTALL_STEPS } from '#core/install/install-steps.js';
import { resolveCurrentSet, SWAP_STRATEGIES, type SwapStrategy } from '#node/store/current-set.js';
import { OFFLOAD_MIN_BYTES } from '#node/blobs/partial-open.js';
import { startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { filesOf, snapshotTree } from '#test/tree-snapshot.js';
import {
  bytesOf,
  cliArgs,
  openUpdater,
  runCli,
  tempDirs,
  updateOnce,
} from '#test/updater-harness.js';

// Several chunks per artifact, so "partial-written" happens before the artifact completes.
// In 2.0.0, app.bin is large enough to be hashed and appended by the worker thread
// (OFFLOAD_MIN_BYTES, hash-append.ts) and data/b.dat goes through the main-thread path: a kill
// at every step covers both.
const V1 = [
  { name: 'app.bin', content: bytesOf(256 * 1024, 11) },
  { name: 'data/a.dat', content: bytesOf(4096, 12) },
  { name: 'old-only.txt', content: new TextEncoder().encode('removed in 2.0.0\n') },
];
// The small ones arrive whole and are promoted behind the downloads: on Linux ≥ 5.8 in one
// syncfs batch (seal-batches.ts), elsewhere one fsync each (seal-queue.ts). A kill at
// "blobs-batch-synced" finds all six sealed and none renamed; at "blob-promoted" or
// "blobs-settled" some or all renamed.
const SMALL = Array.from({ length: 6 }, (_, i) => ({
  name: `small/s${i}.dat`,
  content: bytesOf(16 * 1024 + i, 30 + i),
}));
const V2 = [
  { name: 'app.bin', content: bytesOf(OFFLOAD_MIN_BYTES + 512 * 1024, 21) },
  { name: 'data/a.dat', content: bytesOf(4096, 12) },
  { name: 'data/b.dat', content: bytesOf(320 * 1024, 22) },
  ...SMALL,
];

/**
 * The crash runs sync a large partial's data every 256 KiB (src/node/fs/early-writeback.ts; 64 MiB
 * in the field): app.bin (worker path) and data/b.dat (main-thread path) are killed with early
 * syncs in flight or done.
 */
const WRITEBACK = { UPDATER_TEST_WRITEBACK_BYTES: String(256 * 1024) };

const dirs = tempDirs();
let server: HostileServer;
let dir: string;

/** Expected file maps (name -> sha256) of each complete set. */
let oldSet: Record<string, string>;
let newSet: Record<string, string>;

async function inProcessUpdate(swap?: SwapStrategy): Promise<string> {
  return (await updateOnce(server, dir, swap === undefined ? {} : { swap })).outcome;
}

/** The files of the live set, wherever the strategy keeps it (none: an empty map). */
async function currentFiles(): Promise<Record<string, string>> {
  return filesOf(await snapshotTree((await resolveCurrentSet(dir)) ?? join(dir, 'current')));
}

async function present(name: string): Promise<boolean> {
  return lstat(join(dir, name)).then(
    () => true,
    () => false,
  );
}

/**
 * The temporary files of atomic writes a kill left (`.<name>.<hex>.tmp`): none may outlive the
 * next run, in DIR, DIR/.updater, its manifests/ or its tuf/ (docs/UPDATER.md §3, Temporary
 * files).
 */
async function strayTemps(): Promise<string[]> {
  const found: string[] = [];
  for (const sub of ['', '.updater', '.updater/manifests', '.updater/tuf']) {
    const entries = await readdir(join(dir, sub)).catch(() => []);
    for (const name of entries) if (name.endsWith('.tmp')) found.push(join(sub, name));
  }
  return found;
}

/** Only the chosen strategy's form is on disk (a leftover of the other would go stale). */
async function expectForm(swap: SwapStrategy): Promise<void> {
  expect(await present('current.json')).toBe(swap === 'pointer');
  expect(await present('current')).toBe(swap === 'symlink');
}

beforeAll(async () => {
  // The expected sets, computed once by an honest install into a scratch dir.
  server = await startHostileServer();
  dir = await dirs.make('qa-crash-ref-');
  await server.publish({ version: '1.0.0', files: V1 });
  await inProcessUpdate();
  oldSet = await currentFiles();
  await server.publish({ version: '2.0.0', files: V2 });
  await inProcessUpdate();
  newSet = await currentFiles();
  await server.close();
});

beforeEach(async () => {
  server = await startHostileServer();
  dir = await dirs.make('qa-crash-');
});

afterEach(async () => {
  await server.close();
});

afterAll(async () => {
  await dirs.cleanup();
});

describe.each(SWAP_STRATEGIES)('swap %s', (swap) => {
  describe('kill -9 during an update from 1.0.0 to 2.0.0', () => {
    it('knows every install step and the expected sets differ', () => {
      expect(INSTALL_STEPS.length).toBeGreaterThanOrEqual(5);
      expect(Object.keys(oldSet)).toEqual(['app.bin', 'data/a.dat', 'old-only.txt']);
      expect(Object.keys(newSet)).toEqual([
        'app.bin',
        'data/a.dat',
        'data/b.dat',
        ...SMALL.map((f) => f.name),
      ]);
    });

    for (const step of INSTALL_STEPS) {
      it(`leaves the old or the new set after a kill at "${step}", and the next update completes`, async () => {
        await server.publish({ version: '1.0.0', files: V1 });
        expect(await inProcessUpdate(swap)).toBe('applied');
        await server.publish({ version: '2.0.0', files: V2 });

        const target = { ...server, dir };
        const crashed = await runCli(
          cliArgs('update', target, ['--stall-timeout-ms', '2000', '--swap', swap]),
          { env: { UPDATER_TEST_CRASH_AT: step, ...WRITEBACK } },
        );
        expect(crashed.signal, `the child must reach "${step}" and die there`).toBe('SIGKILL');

        const afterKill = await currentFiles();
        expect([oldSet, newSet]).toContainEqual(afterKill);
        // The swap is the one commit point: before it the old set, from it on the new set.
        const swapped = INSTALL_STEPS.indexOf(step) >= INSTALL_STEPS.indexOf('current-swapped');
        expect(afterKill).toEqual(swapped ? newSet : oldSet);

        // The next run recovers (stale lock, journal, partials) and completes the update.
        const outcome = await inProcessUpdate(swap);
        expect(['applied', 'up-to-date']).toContain(outcome);
        expect(await currentFiles()).toEqual(newSet);
        await expectForm(swap);
        expect(await strayTemps()).toEqual([]);

        // And the installed set verifies against the signed manifest: no drift left behind.
        const u = await openUpdater(server, dir, { swap });
        try {
          const report = await u.verify();
          expect(report.drift).toEqual([]);
          expect(report.version).toBe('2.0.0');
        } finally {
          await u.close();
        }
      });
    }
  });

  describe('kill -9 at a syncfs batch boundary (docs/UPDATER.md §3, Durability)', () => {
    it('leaves the batch sealed in partial/, none named in blobs/, and re-fetches none of it', async () => {
      await server.publish({ version: '1.0.0', files: V1 });
      expect(await inProcessUpdate(swap)).toBe('applied');
      await server.publish({ version: '2.0.0', files: V2 });
      const crashed = await runCli(cliArgs('update', { ...server, dir }, ['--swap', swap]), {
        env: { UPDATER_TEST_CRASH_AT: 'blobs-batch-synced' },
      });
      expect(crashed.signal).toBe('SIGKILL');
      expect(await currentFiles()).toEqual(oldSet);
      // The batch is durable but unnamed: every small blob is a sealed partial, none a blob.
      for (const f of SMALL) {
        const sha = newSet[f.name] as string;
        expect(await present(join('.updater', 'blobs', sha))).toBe(false);
        const part = await lstat(join(dir, '.updater', 'partial', `${sha}.part`));
        expect(part.mode & 0o777).toBe(0o444);
        expect(part.size).toBe(f.content.length);
      }
      // The next run re-hashes those partials and promotes them: not one is fetched again.
      server.resetCounters();
      expect(await inProcessUpdate(swap)).toBe('applied');
      expect(await currentFiles()).toEqual(newSet);
      const fetched = new Set(server.artifactRequests.map((r) => r.name));
      for (const f of SMALL) expect(fetched.has(f.name)).toBe(false);
    });
  });

  describe('kill -9 with a set staged during the pull (docs/UPDATER.md §3, Staging during the pull)', () => {
    it('leaves the pulled blobs linked under sets/<dir>.staging, the old set live; the next open drops the tree', async () => {
      await server.publish({ version: '1.0.0', files: V1 });
      expect(await inProcessUpdate(swap)).toBe('applied');
      await server.publish({ version: '2.0.0', files: V2 });
      const crashed = await runCli(cliArgs('update', { ...server, dir }, ['--swap', swap]), {
        env: { UPDATER_TEST_CRASH_AT: 'blobs-settled' },
      });
      expect(crashed.signal).toBe('SIGKILL');
      expect(await currentFiles()).toEqual(oldSet);
      const sets = join(dir, '.updater', 'sets');
      const staging = (await readdir(sets)).filter((entry) => entry.endsWith('.staging'));
      expect(staging).toHaveLength(1);
      // Every blob the pull brought is linked already; data/a.dat, held since 1.0.0, is not.
      const staged = filesOf(await snapshotTree(join(sets, staging[0] as string)));
      const pulled = Object.fromEntries(
        Object.entries(newSet).filter(([name]) => name !== 'data/a.dat'),
      );
      expect(staged).toEqual(pulled);
      // The new set's signed manifest was written during the pull: one no commit names, which
      // leaves the old set live and verifying against its own (docs/UPDATER.md §3).
      const manifests = join(dir, '.updater', 'manifests');
      expect(await readdir(manifests)).toHaveLength(2);
      const u = await openUpdater(server, dir, { swap });
      try {
        const report = await u.verify();
        expect([report.version, report.drift]).toEqual(['1.0.0', []]);
      } finally {
        await u.close();
      }
      expect((await readdir(sets)).filter((entry) => entry.includes('.staging'))).toEqual([]);
      expect(await currentFiles()).toEqual(oldSet);
      expect(await inProcessUpdate(swap)).toBe('applied');
      expect(await currentFiles()).toEqual(newSet);
    });
  });

  describe('kill -9 during the first install', () => {
    for (const step of [
      'blob-promoted',
      'blobs-batch-synced',
      'blobs-settled',
      'blobs-synced',
      'current-swapped',
    ] as const) {
      it(`leaves no set or the complete set after a kill at "${step}"`, async () => {
        await server.publish({ version: '2.0.0', files: V2 });
        const crashed = await runCli(cliArgs('update', { ...server, dir }, ['--swap', swap]), {
          env: { UPDATER_TEST_CRASH_AT: step },
        });
        expect(crashed.signal).toBe('SIGKILL');
        expect([{}, newSet]).toContainEqual(await currentFiles());
        await inProcessUpdate(swap);
        expect(await currentFiles()).toEqual(newSet);
      });
    }
  });
});

describe('switching the swap strategy of an existing DIR', () => {
  for (const [from, to] of [
    ['symlink', 'pointer'],
    ['pointer', 'symlink'],
  ] as const) {
    it(`migrates ${from} -> ${to} when opened: same live set, then updates under ${to}`, async () => {
      await server.publish({ version: '1.0.0', files: V1 });
      expect(await inProcessUpdate(from)).toBe('applied');
      await expectForm(from);
      await server.publish({ version: '2.0.0', files: V2 });
      expect(await inProcessUpdate(to)).toBe('applied');
      await expectForm(to);
      expect(await currentFiles()).toEqual(newSet);
    });

    // The journal is replayed in the new form: the migration runs first, naming the live set.
    for (const step of ['journal-written', 'current-swapped'] as const) {
      it(`finishes a ${from} commit killed at "${step}" when reopened under ${to}`, async () => {
        await server.publish({ version: '1.0.0', files: V1 });
        expect(await inProcessUpdate(from)).toBe('applied');
        await server.publish({ version: '2.0.0', files: V2 });
        const crashed = await runCli(cliArgs('update', { ...server, dir }, ['--swap', from]), {
          env: { UPDATER_TEST_CRASH_AT: step },
        });
        expect(crashed.signal).toBe('SIGKILL');
        const u = await openUpdater(server, dir, { swap: to });
        try {
          // Opening alone (migration, then journal replay) completes the commit.
          expect(await currentFiles()).toEqual(newSet);
          expect((await u.status()).installedVersion).toBe('2.0.0');
          await expectForm(to);
        } finally {
          await u.close();
        }
      });
    }
  }
});
