/**
 * The versions a TufRepository reads from its directory (server/src/updates/tuf/tuf-repository.ts)
 * are kept between requests while the watched directory, the keys and the release stay the
 * same, and read again after any of them changes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrustKeys } from '#server/updates/keys/trust-keys.js';
import type { Release } from '#server/updates/publish/release-store.js';
import { TufRepository } from '#server/updates/tuf/tuf-repository.js';
import { newKey } from '#test/trust-kit.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const freshness = newKey();
// Only what an update with root 1 and targets 1 already written and no release key reads.
const trustOf = () => ({ freshness, release: undefined }) as unknown as TrustKeys;

let dataDir: string;
let trust: TrustKeys;
let release: Release | undefined;
let reads: number;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tuf-repository-'));
  trust = trustOf();
  release = undefined;
  reads = 0;
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const open = () =>
  TufRepository.open({
    dataDir,
    trust: () => trust,
    current: () => release,
    now: () => NOW,
    timestampLifetimeS: 24 * 3600,
    listVersions: () => {
      reads += 1;
      return Promise.resolve({ root: 1, targets: 1, snapshot: 0 });
    },
  });

async function until(check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('TufRepository: the directory read per request', () => {
  it('reads the directory at every update while nothing watches it', async () => {
    const repo = await open();
    await repo.update();
    await repo.update();
    expect(reads).toBe(2);
  });

  it('keeps the versions while the watched directory, keys and release stay the same', async () => {
    const repo = await open();
    const watcher = repo.watch();
    try {
      await repo.update();
      // The update's own snapshot and timestamp files raise watcher events: let them pass.
      await until(async () => {
        const before = reads;
        await repo.update();
        return reads === before;
      });
      const settled = reads;
      await repo.update();
      await repo.update();
      expect(reads).toBe(settled);

      // A file another process writes: read again once the watcher saw it.
      await writeFile(join(dataDir, 'tuf', '2.targets.json'), '{}');
      await until(async () => {
        await repo.update();
        return reads > settled;
      });

      // A rotation (new keys) and a publish (new release) read again at once.
      const beforeKeys = reads;
      trust = trustOf();
      await repo.update();
      expect(reads).toBe(beforeKeys + 1);
      release = {} as Release;
      await repo.update();
      expect(reads).toBe(beforeKeys + 2);
    } finally {
      watcher.close();
    }
    const closed = reads;
    await repo.update();
    expect(reads).toBe(closed + 1);
  });
});
