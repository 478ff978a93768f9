/**
 * Trust that lasts in the field (docs/PROTOCOL.md §2.7, docs/SECURITY.md §5): the updater core
 * against the real companion server, its dev clock moved forward (POST /api/dev/clock) and the
 * client's injected clock moved with it. A release published once stays installable for 400
 * days with no new publish; a client offline across many re-signs updates in one check; three
 * rotations (freshness, release, root) are followed, step by step and in one walk; a format 1
 * install (schema 1 state) moves to format 2 without a download and refuses a downgrade after.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import type { RotateKeysOptions } from '#server/updates/keys/rotate-keys.js';
import { rotateIn } from '#test/rotate-kit.js';
import { parseState, type UpdaterState } from '#core/state.js';
import type { NodeUpdaterOptions } from '#node/create-updater.js';
import { snapshotObject, snapshotTree } from '#test/tree-snapshot.js';
import {
  bytesOf,
  expectRefusal,
  openUpdater,
  tempDirs,
  updateOnce,
  type UpdaterServer,
} from '#test/updater-harness.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const V1 = [
  { name: 'app.bin', content: bytesOf(24 * 1024, 21) },
  { name: 'readme.txt', content: text('one\n') },
];
const V2 = [
  { name: 'app.bin', content: bytesOf(24 * 1024, 22) },
  { name: 'readme.txt', content: text('one\n') },
];
const DAY_MS = 86_400_000;

const dirs = tempDirs();
let server: RunningServer;
let target: UpdaterServer;
let machineId: string;
/** How far the server's dev clock (and so the client's clock) is ahead of real time. */
let offsetMs = 0;
const clock = { nowMs: () => Date.now() + offsetMs };

/** Moves the server's dev clock and the client's clock forward together. */
async function advance(ms: number): Promise<void> {
  const res = await fetch(`${server.url}/api/dev/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advance_ms: ms }),
  });
  expect(res.status).toBe(200);
  offsetMs += ms;
  // The subscription runs 30 days on the server clock: the customer keeps paying.
  await server.updates.setSubscription(machineId, 'active');
}

const update = (dir: string, options: Partial<NodeUpdaterOptions> = {}) =>
  updateOnce(target, dir, { clock, ...options });

async function stateOf(dir: string): Promise<UpdaterState> {
  return parseState(await readFile(join(dir, '.updater', 'state.json')));
}

beforeEach(async () => {
  offsetMs = 0;
  server = await startServer({ dev: true, simulate: false });
  const minted = await server.updates.mintMachineKey();
  machineId = minted.machine_id;
  target = { baseUrl: server.url, machineKey: minted.machine_key, pubkeyHex: server.nodePubkey };
});

afterEach(async () => {
  await server.close();
  await dirs.cleanup();
});

describe('freshness that never bricks', () => {
  it('1.0.0 published once stays installable for 400 simulated days with no new publish', async () => {
    await server.publish({ registry_version: '1.0.0', artifacts: V1 });
    const dir = await dirs.make('trust-400-');
    expect((await update(dir)).outcome).toBe('applied');
    const sequences = [(await stateOf(dir)).freshness?.sequence ?? 0];
    for (let day = 10; day <= 400; day += 10) {
      await advance(10 * DAY_MS);
      const result = await update(dir);
      expect(result.outcome, `day ${day}`).toBe('up-to-date');
      sequences.push((await stateOf(dir)).freshness?.sequence ?? 0);
    }
    // The server re-signed at every step (a statement lives a day), never publishing again.
    for (let i = 1; i < sequences.length; i++) {
      expect(sequences[i]).toBeGreaterThan(sequences[i - 1] ?? 0);
    }
    expect((await stateOf(dir)).lastError).toBeNull();
    // And a machine installed on day 400 gets the same release.
    const late = await dirs.make('trust-400-late-');
    const fresh = await update(late);
    expect(fresh).toMatchObject({ outcome: 'applied', version: '1.0.0' });
    expect(snapshotObject(await snapshotTree(join(late, 'current')))).toEqual(
      snapshotObject(await snapshotTree(join(dir, 'current'))),
    );
  });

  it('a client offline across many re-signs updates in one check', async () => {
    await server.publish({ registry_version: '1.0.0', artifacts: V1 });
    const offline = await dirs.make('trust-offline-');
    const online = await dirs.make('trust-online-');
    expect((await update(offline)).outcome).toBe('applied');
    const before = (await stateOf(offline)).freshness?.sequence ?? 0;
    // Sixty days pass; another machine checks every day, so the server re-signs every day.
    for (let day = 1; day <= 60; day++) {
      await advance(DAY_MS);
      if (day === 30) await server.publish({ registry_version: '2.0.0', artifacts: V2 });
      await update(online);
    }
    const result = await update(offline);
    expect(result).toMatchObject({ outcome: 'applied', version: '2.0.0' });
    const after = (await stateOf(offline)).freshness?.sequence ?? 0;
    expect(after - before).toBeGreaterThanOrEqual(60);
    expect(after).toBe(server.updates.freshnessSequence());
  });
});

describe('key rotation followed', () => {
  const rotate = (change: Partial<RotateKeysOptions>) =>
    rotateIn(server.dataDir, change, () => server.clock.now());

  /** Waits (bounded) until the running server serves key set `version`. */
  async function served(version: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await fetch(`${server.url}/api/updates/manifest`, {
        headers: { authorization: `Bearer ${target.machineKey}` },
      });
      const links = ((await res.json()) as { keys: unknown[] }).keys;
      if (links.length === version) return;
      if (Date.now() > deadline) throw new Error(`key set ${version} not served`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('follows a chain of three rotations (freshness, release, root), step by step and in one walk', async () => {
    await server.publish({ registry_version: '1.0.0', artifacts: V1 });
    const stepwise = await dirs.make('trust-rotate-steps-');
    const offline = await dirs.make('trust-rotate-offline-');
    expect((await update(stepwise)).outcome).toBe('applied');
    expect((await update(offline)).outcome).toBe('applied');
    expect((await stateOf(offline)).trust?.keySet.version).toBe(1);
    const roots = [1, 2, 3].map((i) => join(server.dataDir, `root-${i}.json`));
    const steps: (() => Promise<unknown>)[] = [
      () => rotate({ newFreshnessKey: true }),
      // The development path: the new release key co-signs the current release itself.
      () => rotate({ newReleaseKey: true }),
      () => rotate({ newRootKeyFiles: roots, rootThreshold: 2 }),
    ];
    for (const [i, step] of steps.entries()) {
      await step();
      await served(i + 2);
      expect((await update(stepwise)).outcome).toBe('up-to-date');
      expect((await stateOf(stepwise)).trust?.keySet.version).toBe(i + 2);
    }
    const trusted = await stateOf(stepwise);
    expect(trusted.trust?.keySet.root.threshold).toBe(2);
    expect(trusted.trust?.retired.length).toBeGreaterThanOrEqual(3);
    // verify() checks the installed release under the newest release key (it was co-signed).
    const u = await openUpdater(target, stepwise, { clock });
    try {
      expect((await u.verify()).ok).toBe(true);
    } finally {
      await u.close();
    }
    // A release signed by the new release key installs on both; the offline one walks the
    // three links in one check.
    await server.publish({ registry_version: '2.0.0', artifacts: V2 });
    expect(await update(stepwise)).toMatchObject({ outcome: 'applied', version: '2.0.0' });
    expect(await update(offline)).toMatchObject({ outcome: 'applied', version: '2.0.0' });
    expect((await stateOf(offline)).trust).toEqual(trusted.trust);
  });
});

describe('migration from format 1 (docs/PROTOCOL.md §2.7.7)', () => {
  let proxy: Server | undefined;
  afterEach(async () => {
    proxy?.closeAllConnections();
    await new Promise<void>((resolve) =>
      proxy === undefined ? resolve() : proxy.close(() => resolve()),
    );
    proxy = undefined;
  });

  /**
   * What a client that predates format 2 sees: the server's answer with the format 2 fields
   * removed, leaving the format 1 envelope the server puts at the top level.
   */
  async function formatOneView(): Promise<string> {
    proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
      void (async () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const upstream = await fetch(`${server.url}${path}`, {
          headers: { authorization: req.headers.authorization ?? '' },
        });
        let body = Buffer.from(await upstream.arrayBuffer());
        if (path === '/api/updates/manifest' && upstream.status === 200) {
          const o = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
          for (const field of ['format', 'keys', 'release', 'freshness']) delete o[field];
          body = Buffer.from(JSON.stringify(o));
        }
        res.writeHead(upstream.status, {
          'content-type': upstream.headers.get('content-type') ?? 'application/json',
          'content-length': body.length,
        });
        res.end(body);
      })().catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => proxy?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  }

  it('a schema 1 install moves to format 2 with no download, then refuses a downgrade', async () => {
    await server.publish({ registry_version: '1.0.0', artifacts: V1 });
    const dir = await dirs.make('trust-migrate-');
    const old = { ...target, baseUrl: await formatOneView() };
    // The format 1 install, as a client that predates format 2 made it.
    expect((await updateOnce(old, dir, { clock })).outcome).toBe('applied');
    const path = join(dir, '.updater', 'state.json');
    const written = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    const { releaseDigests, trust, freshness, ...schemaOne } = written;
    expect([releaseDigests, trust, freshness]).toEqual([{}, null, null]);
    await writeFile(path, `${JSON.stringify({ ...schemaOne, schema: 1 })}\n`);
    const formatOne = await stateOf(dir);
    expect(formatOne.trust).toBeNull();
    const files = snapshotObject(await snapshotTree(join(dir, 'current')));

    // The new client on the new server: key set 1 from the pinned key, the set re-staged
    // under its release digest from the blobs it already has.
    const moved = await updateOnce(target, dir, { clock });
    expect(moved).toMatchObject({ outcome: 'applied', version: '1.0.0', bytesDownloaded: 0 });
    const state = await stateOf(dir);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ schema: 2 });
    expect(state.trust?.keySet.version).toBe(1);
    expect(state.installed?.setId).toBe(state.releaseDigests['1.0.0']);
    expect(state.acceptedDigests['1.0.0']).toBe(formatOne.installed?.setId);
    expect(snapshotObject(await snapshotTree(join(dir, 'current')))).toEqual(files);
    expect((await update(dir)).outcome).toBe('up-to-date');

    // Once a key set is trusted, the format 1 view is a downgrade.
    const u = await openUpdater(old, dir, { clock });
    try {
      await expectRefusal(u.update(), 'FORMAT_DOWNGRADE');
      expect((await u.verify()).ok).toBe(true);
    } finally {
      await u.close();
    }
    expect(snapshotObject(await snapshotTree(join(dir, 'current')))).toEqual(files);
    expect((await stateOf(dir)).trust).toEqual(state.trust);
    await server.publish({ registry_version: '1.1.0', artifacts: V2 });
    expect(await update(dir)).toMatchObject({ outcome: 'applied', version: '1.1.0' });
  });
});
