import { readFile } from 'node:fs/promises';
import { release } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UpdateEvent } from '#core/events.js';
import type { UpdaterApi } from '#core/updater-api.js';
import { createNodeUpdater, type NodeUpdaterOptions } from '#node/create-updater.js';
import { syncfsReportsErrors } from '#node/fs/fs-sync.js';
import { text } from '#test/fakes.js';
import { startLocalRegistry, type LocalRegistry } from '#test/local-registry.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
let registry: LocalRegistry;
let dir: string;
const open: UpdaterApi[] = [];

beforeEach(async () => {
  registry = await startLocalRegistry();
  dir = await dirs.make();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((u) => u.close()));
  await registry.close();
  await dirs.cleanup();
});

async function make(overrides: Partial<NodeUpdaterOptions> = {}): Promise<UpdaterApi> {
  const updater = await createNodeUpdater({
    baseUrl: registry.baseUrl,
    machineKey: registry.machineKey,
    pubkeys: [registry.pubkeyHex],
    dir,
    limits: { retries: 1, stallTimeoutMs: 2000 },
    ...overrides,
  });
  open.push(updater);
  return updater;
}

const V1 = [
  { name: 'app.bin', content: new Uint8Array(200_000).fill(1) },
  { name: 'docs/readme.txt', content: text('one') },
];
const V2 = [
  { name: 'app.bin', content: new Uint8Array(200_000).fill(1) },
  { name: 'docs/readme.txt', content: text('two') },
];

describe('createNodeUpdater', () => {
  it('installs over HTTP into DIR/current and reports progress', async () => {
    registry.publish('1.0.0', V1);
    const updater = await make();
    const events: UpdateEvent[] = [];
    updater.on((e) => events.push(e));
    const result = await updater.update();
    expect(result).toMatchObject({
      outcome: 'applied',
      version: '1.0.0',
      bytesDownloaded: 200_003,
    });
    expect(await readFile(join(dir, 'current', 'docs', 'readme.txt'), 'utf8')).toBe('one');
    const last = events.filter((e) => e.type === 'progress').at(-1);
    expect(last).toMatchObject({ bytes: 200_003, total: 200_003 });
  });

  it('with preconnect, the registry is connected before any run and the manifest goes over it', async () => {
    registry.publish('1.0.0', V1);
    const updater = await make({ preconnect: true });
    // Opened while the state directory was prepared and locked; nothing asked yet.
    await vi.waitFor(() => expect(registry.connections).toBe(1));
    expect(registry.requests).toEqual([]);
    const connectionsAtManifest: number[] = [];
    registry.hook = (req) => {
      if (req.url === '/api/updates/manifest') connectionsAtManifest.push(registry.connections);
      return false;
    };
    expect(await updater.update()).toMatchObject({ outcome: 'applied', version: '1.0.0' });
    expect(connectionsAtManifest).toEqual([1]);
  });

  it('without preconnect, the registry sees no connection before the first run', async () => {
    registry.publish('1.0.0', V1);
    const updater = await make();
    expect(registry.connections).toBe(0);
    await updater.update();
    expect(registry.connections).toBeGreaterThan(0);
  });

  it('moves only the changed bytes on the next release and survives a restart', async () => {
    registry.publish('1.0.0', V1);
    await (await make()).update();
    await open.pop()?.close();
    registry.publish('1.1.0', V2);
    const result = await (await make()).update();
    expect(result.bytesDownloaded).toBe(3);
    expect(await readFile(join(dir, 'current', 'docs', 'readme.txt'), 'utf8')).toBe('two');
  });

  it('refuses a second updater on the same directory (LOCKED)', async () => {
    await make();
    await expect(make()).rejects.toMatchObject({ code: 'LOCKED' });
  });

  it('releases the lock on close', async () => {
    const first = await make();
    await first.close();
    await expect(make()).resolves.toBeDefined();
  });

  it('refuses a malformed pinned key (CONFIG_INVALID)', async () => {
    await expect(make({ pubkeys: ['xyz'] })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });

  it('refuses `ca` beside `fetch`, whose trust it would not narrow (CONFIG_INVALID)', async () => {
    await expect(make({ ca: 'PEM', fetch: globalThis.fetch })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
  });

  it('refuses a base URL that is not http(s) (CONFIG_INVALID)', async () => {
    await expect(make({ baseUrl: 'file:///tmp' })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
  });

  it('refuses out-of-range limits (CONFIG_INVALID)', async () => {
    await expect(make({ limits: { parallel: 0 } })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
  });

  it('reports every durable step to onStep, in INSTALL_STEPS order', async () => {
    // One artifact past the 256 KiB append buffer, first of all and one at a time, so a
    // partial append comes before any promotion.
    registry.publish('1.0.0', [{ name: 'a-big.bin', content: new Uint8Array(300_000) }, ...V1]);
    const steps: string[] = [];
    const limits = { retries: 1, stallTimeoutMs: 2000, parallel: 1 };
    await (await make({ onStep: (s) => steps.push(s), limits })).update();
    const distinct = steps.filter((s, i) => steps.indexOf(s) === i);
    expect(distinct).toEqual([
      'accepted-recorded',
      'partial-written',
      'blob-promoted',
      // The small ones' batch syncs once, where syncfs reports errors (fs-sync.ts).
      ...(syncfsReportsErrors(process.platform, release()) ? ['blobs-batch-synced'] : []),
      'blobs-settled',
      'blobs-synced',
      'set-staged',
      'journal-written',
      'current-swapped',
      'state-written',
      'journal-removed',
      'gc-done',
    ]);
  });

  it('refuses the symlink swap on Windows and a bad health option (CONFIG_INVALID)', async () => {
    await expect(make({ swap: 'symlink', platform: 'win32' })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
    await expect(make({ health: { mode: 'command', command: '' } })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
    await expect(make({ health: { mode: 'confirm', timeoutMs: 0 } })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
  });
});
