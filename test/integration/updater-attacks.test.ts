/**
 * The adversarial suite (docs/UPDATER-PROOF.md §1, docs/SECURITY.md §2): one named test per attack, against the hostile
 * server. Every test installs an honest 1.0.0 first, then attacks, and asserts the error code
 * AND that the live set is byte-identical to before (names + SHA-256 of every file). The whole
 * suite runs once per swap strategy (docs/UPDATER.md §2): the live set is found with
 * resolveCurrentSet, DIR/current (symlink) or DIR/current.json (pointer).
 */
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpdaterApi } from '#core/updater-api.js';
import type { Limits } from '#core/limits.js';
import { resolveCurrentSet, SWAP_STRATEGIES, type SwapStrategy } from '#node/store/current-set.js';
import { generateKeyPair, pubkeyToHex, type Manifest } from '#protocol';
import { sha256Hex, startHostileServer, type HostileServer } from '#test/hostile-server.js';
import { filesOf, snapshotTree, snapshotObject } from '#test/tree-snapshot.js';
import { bytesOf, expectRefusal, openUpdater, tempDirs } from '#test/updater-harness.js';

const V1 = [
  { name: 'app.bin', content: bytesOf(48 * 1024, 1) },
  { name: 'lib/core.js', content: new TextEncoder().encode('export const v = 1;\n') },
  { name: 'readme.txt', content: new TextEncoder().encode('version one\n') },
];
const V2 = [
  { name: 'app.bin', content: bytesOf(64 * 1024, 2) },
  { name: 'lib/core.js', content: new TextEncoder().encode('export const v = 2;\n') },
  { name: 'readme.txt', content: new TextEncoder().encode('version one\n') },
];
const DAY_MS = 86_400_000;

const dirs = tempDirs();
let server: HostileServer;
let dir: string;
const updaters: UpdaterApi[] = [];
/** The swap strategy of the describe.each block running (set in its beforeEach). */
let swap: SwapStrategy = 'symlink';

/** The live set's directory (or DIR/current before any install). */
async function live(): Promise<string> {
  return (await resolveCurrentSet(dir)) ?? join(dir, 'current');
}

/**
 * A fresh updater (a restart); earlier ones are closed first, as they hold DIR's lock.
 * `clockSkewMs` runs it with its injected clock that far ahead of real time (freeze attacks).
 */
async function updater(
  limits: Partial<Limits> = {},
  machineKey?: string,
  clockSkewMs = 0,
): Promise<UpdaterApi> {
  await Promise.all(updaters.splice(0).map((x) => x.close()));
  const u = await openUpdater(server, dir, {
    swap,
    limits,
    clock: { nowMs: () => Date.now() + clockSkewMs },
    ...(machineKey === undefined ? {} : { machineKey }),
  });
  updaters.push(u);
  return u;
}

/** Installs the honest 1.0.0 and returns the snapshot of DIR/current. */
async function installV1(): Promise<Map<string, string>> {
  await server.publish({ version: '1.0.0', files: V1 });
  const result = await (await updater()).update();
  expect(result.outcome).toBe('applied');
  server.resetCounters();
  return new Map(await snapshotTree(await live()));
}

/** The attack ran: assert the code and that nothing under DIR/current changed. */
async function refusedAndUnchanged(
  before: Map<string, string>,
  run: Promise<unknown>,
  code: Parameters<typeof expectRefusal>[1],
): Promise<void> {
  await expectRefusal(run, code);
  expect(snapshotObject(await snapshotTree(await live()))).toEqual(snapshotObject(before));
}

beforeEach(async () => {
  server = await startHostileServer();
  dir = await dirs.make('qa-attacks-');
});

afterEach(async () => {
  await Promise.all(updaters.splice(0).map((u) => u.close()));
  await server.close();
  await dirs.cleanup();
});

describe.each(SWAP_STRATEGIES)('swap %s', (strategy) => {
  beforeEach(() => {
    swap = strategy;
  });

  describe('signature and trust', () => {
    it('refuses a manifest signed by the wrong key (SIGNATURE_INVALID)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setManifestAttack('wrong-key');
      await refusedAndUnchanged(before, (await updater()).update(), 'SIGNATURE_INVALID');
      expect(server.bytesServed()).toBe(0);
    });

    it('refuses a bad signature (SIGNATURE_INVALID)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setManifestAttack('bad-signature');
      await refusedAndUnchanged(before, (await updater()).update(), 'SIGNATURE_INVALID');
      expect(server.bytesServed()).toBe(0);
    });

    it('refuses a payload tampered with after signing (SIGNATURE_INVALID)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setManifestAttack('tampered-payload');
      await refusedAndUnchanged(before, (await updater()).update(), 'SIGNATURE_INVALID');
      expect(server.bytesServed()).toBe(0);
    });

    it('refuses a signature whose keyid names no pinned key (UNKNOWN_KEY)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setManifestAttack('unpinned-keyid');
      await refusedAndUnchanged(before, (await updater()).update(), 'UNKNOWN_KEY');
    });

    it('refuses a valid signature over another payload type (WRONG_PAYLOAD_TYPE)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setManifestAttack('wrong-payload-type');
      await refusedAndUnchanged(before, (await updater()).update(), 'WRONG_PAYLOAD_TYPE');
    });

    it('refuses an envelope that is not JSON (ENVELOPE_MALFORMED)', async () => {
      const before = await installV1();
      server.setManifestAttack('malformed-envelope');
      await refusedAndUnchanged(before, (await updater()).update(), 'ENVELOPE_MALFORMED');
    });
  });

  describe('freshness, rollback and equivocation', () => {
    it('refuses an expired manifest (MANIFEST_EXPIRED)', async () => {
      const before = await installV1();
      const now = Date.now();
      await server.publish({
        version: '2.0.0',
        files: V2,
        issuedAtMs: now - 2 * DAY_MS,
        expiresAtMs: now - DAY_MS,
      });
      await refusedAndUnchanged(before, (await updater()).update(), 'MANIFEST_EXPIRED');
    });

    it('refuses a manifest issued in the future (MANIFEST_FROM_FUTURE)', async () => {
      const before = await installV1();
      const now = Date.now();
      await server.publish({
        version: '2.0.0',
        files: V2,
        issuedAtMs: now + DAY_MS,
        expiresAtMs: now + 2 * DAY_MS,
      });
      await refusedAndUnchanged(before, (await updater()).update(), 'MANIFEST_FROM_FUTURE');
    });

    it('refuses a rollback to an older version, freshly signed (ROLLBACK)', async () => {
      await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      expect((await (await updater()).update()).outcome).toBe('applied');
      const before = new Map(await snapshotTree(await live()));
      await server.publish({ version: '1.0.0', files: V1 });
      await refusedAndUnchanged(before, (await updater()).update(), 'ROLLBACK');
    });

    it('refuses a rollback below a version that was only checked, never installed (ROLLBACK)', async () => {
      const before = await installV1();
      await server.publish({ version: '3.0.0', files: V2 });
      await (await updater()).check();
      await server.publish({ version: '2.0.0', files: V2 });
      await refusedAndUnchanged(before, (await updater()).update(), 'ROLLBACK');
    });

    it('refuses a different payload at the same version (EQUIVOCATION)', async () => {
      const before = await installV1();
      await server.publish({ version: '1.0.0', files: V2 });
      await refusedAndUnchanged(before, (await updater()).update(), 'EQUIVOCATION');
    });
  });

  describe('freeze attacks (TUF spec §5.4.4: an expired manifest is never trusted)', () => {
    it('freeze: the exact installed manifest replayed after it expires is refused with MANIFEST_EXPIRED and DIR/current is unchanged', async () => {
      const before = await installV1();
      const installed = server.envelope();
      // The server keeps serving the very bytes that were installed, signature still valid; the
      // client's clock has moved two days on, past expires_at (one day after publishing).
      await refusedAndUnchanged(
        before,
        (await updater({}, undefined, 2 * DAY_MS)).update(),
        'MANIFEST_EXPIRED',
      );
      expect(server.envelope()).toEqual(installed);
      expect(server.bytesServed()).toBe(0);
      expect((await (await updater({}, undefined, 2 * DAY_MS)).status()).lastError?.code).toBe(
        'MANIFEST_EXPIRED',
      );
    });

    it('freeze: an old still-signed manifest of the installed version replayed after a newer one was accepted is ROLLBACK', async () => {
      const now = Date.now();
      const v1 = {
        version: '1.0.0',
        files: V1,
        issuedAtMs: now - 60_000,
        expiresAtMs: now + DAY_MS,
      };
      await server.publish(v1);
      expect((await (await updater()).update()).outcome).toBe('applied');
      const before = new Map(await snapshotTree(await live()));
      const installed = server.envelope();
      await server.publish({ version: '2.0.0', files: V2 });
      await (await updater()).check();
      // Same timestamps: deterministic Ed25519 gives back the exact, still-valid envelope.
      await server.publish(v1);
      expect(server.envelope()).toEqual(installed);
      await refusedAndUnchanged(before, (await updater()).update(), 'ROLLBACK');
    });
  });

  describe('endless data and limits', () => {
    it('stops reading an endless manifest at the limit (MANIFEST_TOO_LARGE)', async () => {
      const before = await installV1();
      server.setManifestAttack('endless');
      const limit = 64 * 1024;
      await refusedAndUnchanged(
        before,
        (await updater({ maxManifestBytes: limit })).update(),
        'MANIFEST_TOO_LARGE',
      );
      // Socket buffers let the server write ahead of the client, but far less than its 64 MiB.
      expect(server.manifestBytesServed()).toBeLessThan(16 * 1024 * 1024);
    });

    it('refuses more artifacts than the limit (TOO_MANY_ARTIFACTS)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      await refusedAndUnchanged(
        before,
        (await updater({ maxArtifacts: 2 })).update(),
        'TOO_MANY_ARTIFACTS',
      );
    });

    it('refuses an artifact over the size limit before downloading it (ARTIFACT_TOO_LARGE)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      await refusedAndUnchanged(
        before,
        (await updater({ maxArtifactBytes: 50 * 1024 })).update(),
        'ARTIFACT_TOO_LARGE',
      );
      expect(server.bytesServed()).toBe(0);
    });

    it('refuses a malformed digest (BAD_DIGEST)', async () => {
      const before = await installV1();
      const upper = (m: Manifest): Manifest => ({
        ...m,
        artifacts: m.artifacts.map((a) => ({ ...a, sha256: a.sha256.toUpperCase() })),
      });
      await server.publish({ version: '2.0.0', files: V2, edit: upper });
      await refusedAndUnchanged(before, (await updater()).update(), 'BAD_DIGEST');
    });
  });

  describe('unsafe names', () => {
    const cases: [string, string][] = [
      ['a parent-directory escape', '../escape.txt'],
      ['an absolute path', '/tmp/escape.txt'],
      ['a backslash path', '..\\escape.txt'],
      ['a drive letter', 'C:escape.txt'],
      ['a nested parent escape', 'lib/../../escape.txt'],
      ['a Windows device name', 'lib/CON'],
      ['a name not in Unicode NFC', 'cafe\u0301.txt'],
      ['a control character', 'bell\u0007.txt'],
      ['an empty segment', 'lib//core.js'],
    ];
    for (const [what, name] of cases) {
      it(`refuses ${what}: ${JSON.stringify(name)} (UNSAFE_NAME)`, async () => {
        const before = await installV1();
        const evil = (m: Manifest): Manifest => ({
          ...m,
          artifacts: m.artifacts.map((a, i) => (i === 0 ? { ...a, name } : a)),
        });
        await server.publish({ version: '2.0.0', files: V2, edit: evil });
        await refusedAndUnchanged(before, (await updater()).update(), 'UNSAFE_NAME');
        expect(server.bytesServed()).toBe(0);
        // Nothing was written next to the state directory either.
        const parent = await readdir(join(dir, '..'));
        expect(parent).not.toContain('escape.txt');
      });
    }

    it('refuses two names that differ only by case (UNSAFE_NAME)', async () => {
      const before = await installV1();
      const files = [...V2, { name: 'README.TXT', content: new Uint8Array([1]) }];
      await server.publish({ version: '2.0.0', files });
      await refusedAndUnchanged(before, (await updater()).update(), 'UNSAFE_NAME');
    });
  });

  describe('transfer attacks', () => {
    it('stops at the signed size when an artifact is longer than signed (SIZE_MISMATCH)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setArtifactAttack('app.bin', { kind: 'longer', extraBytes: 8 * 1024 * 1024 });
      await refusedAndUnchanged(before, (await updater({ retries: 0 })).update(), 'SIZE_MISMATCH');
      expect(server.bytesServed('app.bin')).toBeLessThan(64 * 1024 + 1024 * 1024);
    });

    it('stops at the signed size of a chunked response without a length (SIZE_MISMATCH)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setArtifactAttack('app.bin', {
        kind: 'longer',
        extraBytes: 8 * 1024 * 1024,
        chunked: true,
      });
      await refusedAndUnchanged(before, (await updater({ retries: 0 })).update(), 'SIZE_MISMATCH');
    });

    it('refuses an artifact shorter than signed (SIZE_MISMATCH)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setArtifactAttack('app.bin', { kind: 'shorter', missingBytes: 100 });
      await refusedAndUnchanged(before, (await updater({ retries: 0 })).update(), 'SIZE_MISMATCH');
    });

    it('refuses an artifact whose bytes do not match the signed digest (HASH_MISMATCH)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setArtifactAttack('app.bin', { kind: 'corrupt' });
      await refusedAndUnchanged(before, (await updater()).update(), 'HASH_MISMATCH');
    });

    it('detects a slow drip that defeats the idle timeout (STALLED)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      // 10 bytes every 100 ms: never idle for 500 ms, but 100 B/s < 1024 B/s over a 1 s window.
      server.setArtifactAttack('app.bin', {
        kind: 'drip',
        bytesPerTick: 10,
        tickMs: 100,
        maxTicks: 100,
      });
      const started = Date.now();
      const u = await updater({ retries: 0, minBytesPerS: 1024, throughputWindowMs: 1_000 });
      await refusedAndUnchanged(before, u.update(), 'STALLED');
      expect(Date.now() - started).toBeLessThan(6_000);
    });

    it('detects a server that stops sending mid-artifact (STALLED)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setArtifactAttack('app.bin', { kind: 'stall', afterBytes: 1000, holdMs: 5_000 });
      await refusedAndUnchanged(before, (await updater({ retries: 0 })).update(), 'STALLED');
    });

    it('fails closed when every connection drops mid-download (NETWORK)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setArtifactAttack('app.bin', { kind: 'drop', afterBytes: 10_000 });
      await refusedAndUnchanged(before, (await updater({ retries: 1 })).update(), 'NETWORK');
    });

    it('completes the update after a refused transfer once the server is honest again', async () => {
      await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setArtifactAttack('app.bin', { kind: 'corrupt' });
      await expectRefusal((await updater()).update(), 'HASH_MISMATCH');
      server.setArtifactAttack('app.bin', undefined);
      const result = await (await updater()).update();
      expect(result.outcome).toBe('applied');
      const files = snapshotObject(await snapshotTree(await live()));
      expect(Object.keys(files).filter((n) => files[n] !== 'dir')).toEqual([
        'app.bin',
        'lib/core.js',
        'readme.txt',
      ]);
    });
  });

  describe('the service refuses', () => {
    it('maps 401 INVALID_MACHINE_KEY to UNAUTHORIZED', async () => {
      const before = await installV1();
      await refusedAndUnchanged(before, (await updater({}, 'mk_wrong')).update(), 'UNAUTHORIZED');
    });

    it('maps 403 SUBSCRIPTION_INACTIVE to SUBSCRIPTION_INACTIVE', async () => {
      const before = await installV1();
      server.setManifestAttack('subscription-inactive');
      await refusedAndUnchanged(before, (await updater()).update(), 'SUBSCRIPTION_INACTIVE');
    });

    it('does not wait out a long Retry-After on 503 inside a run, and keeps its value', async () => {
      const before = await installV1();
      server.setManifestAttack('unavailable');
      const error = await expectRefusal((await updater()).update(), 'HTTP_STATUS');
      expect((error as { retryAfterMs?: number }).retryAfterMs).toBe(7_000);
      expect(snapshotObject(await snapshotTree(await live()))).toEqual(snapshotObject(before));
    });

    it('never sends the machine key to an artifact host on another origin', async () => {
      const cdn = await startHostileServer();
      try {
        await installV1();
        // The CDN holds the same blobs; the manifest (signed by `server`) points at it.
        await cdn.publish({ version: '2.0.0', files: V2 });
        await server.publish({
          version: '2.0.0',
          files: V2,
          urlFor: ({ name, sha256 }) => `${cdn.baseUrl}/artifacts/${sha256}/${name}`,
        });
        expect((await (await updater()).update()).outcome).toBe('applied');
        expect(cdn.artifactRequests.length).toBeGreaterThan(0);
        expect(cdn.artifactRequests.every((r) => r.authorization === undefined)).toBe(true);
      } finally {
        await cdn.close();
      }
    });
  });

  describe('local tampering', () => {
    it('verify reports a deleted file as missing and an added file as unexpected', async () => {
      await installV1();
      await rm(join(await live(), 'readme.txt'));
      await writeFile(join(await live(), 'extra.txt'), 'not signed\n');
      const report = await (await updater()).verify();
      expect(report.ok).toBe(false);
      expect(report.version).toBe('1.0.0');
      expect([...report.drift].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
        { name: 'extra.txt', problem: 'unexpected' },
        { name: 'readme.txt', problem: 'missing' },
      ]);
    });

    it('does not carry a modified installed file into the next set', async () => {
      await installV1();
      // readme.txt is unchanged in 2.0.0, so the plan reuses it. Someone edits it in place
      // (as root, or after a chmod: installed files may share an inode with the blob store).
      await writeFile(join(await live(), 'readme.txt'), 'tampered locally\n');
      await server.publish({ version: '2.0.0', files: V2 });
      const u = await updater();
      expect((await u.update()).outcome).toBe('applied');
      const report = await u.verify();
      expect(report.drift).toEqual([]);
      expect(filesOf(await snapshotTree(await live()))['readme.txt']).toBe(
        sha256Hex(new TextEncoder().encode('version one\n')),
      );
    });
  });

  describe('redirects, URLs and lying ranges', () => {
    it('never forwards the machine key when the manifest redirects to another origin', async () => {
      const other = await startHostileServer(server.machineKey);
      try {
        const before = await installV1();
        await other.publish({ version: '2.0.0', files: V2 });
        server.setManifestRedirect(`${other.baseUrl}/api/updates/manifest`);
        // Without the key the other origin answers 401: the run is refused, nothing leaks.
        await refusedAndUnchanged(before, (await updater()).update(), 'UNAUTHORIZED');
        expect(other.manifestAuthorizations.length).toBeGreaterThan(0);
        expect(other.manifestAuthorizations.every((a) => a === undefined)).toBe(true);
      } finally {
        await other.close();
      }
    });

    it('follows an artifact redirect to another origin without the machine key', async () => {
      const cdn = await startHostileServer();
      try {
        await installV1();
        await cdn.publish({ version: '2.0.0', files: V2 });
        const m = await server.publish({ version: '2.0.0', files: V2 });
        const app = m.artifacts.find((a) => a.name === 'app.bin');
        server.setArtifactAttack('app.bin', {
          kind: 'redirect',
          location: `${cdn.baseUrl}/artifacts/${app?.sha256 ?? ''}/app.bin`,
        });
        expect((await (await updater()).update()).outcome).toBe('applied');
        expect(cdn.artifactRequests.map((r) => r.authorization)).toEqual([undefined]);
      } finally {
        await cdn.close();
      }
    });

    it('refuses an artifact URL with a file: scheme before reading anything', async () => {
      const before = await installV1();
      const local = (m: Manifest): Manifest => ({
        ...m,
        artifacts: m.artifacts.map((a, i) => (i === 0 ? { ...a, url: 'file:///etc/passwd' } : a)),
      });
      await server.publish({ version: '2.0.0', files: V2, edit: local });
      await refusedAndUnchanged(before, (await updater()).update(), 'MANIFEST_MALFORMED');
    });

    it('installs exactly, or refuses, when a resumed 206 is for the wrong range', async () => {
      const before = await installV1();
      const big = bytesOf(1024 * 1024, 3);
      await server.publish({ version: '2.0.0', files: [{ name: 'app.bin', content: big }] });
      // The retry asks for bytes=N-; the server answers 206 with the whole body from byte 0.
      server.setArtifactAttack('app.bin', {
        kind: 'drop',
        afterBytes: 600_000,
        times: 1,
        then: { kind: 'wrong-content-range' },
      });
      const u = await updater({ retries: 3 });
      const outcome = await u.update().then(
        (r) => r.outcome,
        (e: unknown) => (e as { code?: string }).code,
      );
      expect(server.artifactRequests.some((r) => r.range !== undefined)).toBe(true);
      const files = filesOf(await snapshotTree(await live()));
      if (outcome === 'applied') expect(files).toEqual({ 'app.bin': sha256Hex(big) });
      else expect(files).toEqual(filesOf(before));
    });

    it('joins a second update() to the run in flight: each artifact is fetched once', async () => {
      await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      const u = await updater();
      const [a, b] = await Promise.all([u.update(), u.update()]);
      expect(a.outcome).toBe('applied');
      expect(b).toEqual(a);
      const names = server.artifactRequests.map((r) => r.name).sort();
      expect(names).toEqual(['app.bin', 'lib/core.js']);
    });
  });

  describe('pinned keys and local state', () => {
    it('accepts a manifest signed by the second of two pinned keys (rotation)', async () => {
      await server.publish({ version: '1.0.0', files: V1 });
      const other = pubkeyToHex(generateKeyPair().publicKey);
      const u = await openUpdater(server, dir, { swap, pubkeys: [other, server.pubkeyHex] });
      updaters.push(u);
      expect((await u.update()).outcome).toBe('applied');
    });

    it('refuses when only other keys are pinned (UNKNOWN_KEY)', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      await Promise.all(updaters.splice(0).map((x) => x.close()));
      const u = await openUpdater(server, dir, {
        swap,
        pubkeys: [pubkeyToHex(generateKeyPair().publicKey)],
      });
      updaters.push(u);
      await refusedAndUnchanged(before, u.update(), 'UNKNOWN_KEY');
    });

    it('refuses a damaged state file (STATE_CORRUPT) instead of guessing', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      await writeFile(join(dir, '.updater', 'state.json'), '{"schema": 1, "highestAcc');
      const run = (async () => (await updater()).update())();
      await refusedAndUnchanged(before, run, 'STATE_CORRUPT');
    });
  });

  describe('local rollback keeps the rollback floor', () => {
    it('restores 1.0.0, then still refuses a replayed 1.0.0 manifest (ROLLBACK)', async () => {
      await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      const u = await updater();
      expect((await u.update()).outcome).toBe('applied');
      expect(await u.rollback()).toEqual({ version: '1.0.0' });
      const before = new Map(await snapshotTree(await live()));
      expect(filesOf(before)['lib/core.js']).toBe(sha256Hex(V1[1]?.content ?? new Uint8Array()));
      // The server offers 1.0.0 again, validly signed: rolling back the files locally did not
      // lower the floor, which is still 2.0.0.
      await server.publish({ version: '1.0.0', files: V1 });
      await refusedAndUnchanged(before, (await updater()).update(), 'ROLLBACK');
    });

    it('re-applies the newest accepted release on the next update after a rollback', async () => {
      await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      const u = await updater();
      await u.update();
      await u.rollback();
      server.resetCounters();
      const again = await (await updater()).update();
      expect(again.outcome).toBe('applied');
      expect(again.version).toBe('2.0.0');
      // The 2.0.0 blobs are still in the store: nothing is downloaded again.
      expect(server.bytesServed()).toBe(0);
    });

    it('refuses a rollback with nothing kept (NOTHING_TO_ROLL_BACK)', async () => {
      const before = await installV1();
      await refusedAndUnchanged(before, (await updater()).rollback(), 'NOTHING_TO_ROLL_BACK');
    });
  });

  describe('closing mid-run', () => {
    it('aborts a pull in flight on close() (ABORTED), keeps DIR/current and releases the lock', async () => {
      const before = await installV1();
      await server.publish({ version: '2.0.0', files: V2 });
      server.setArtifactAttack('app.bin', { kind: 'stall', afterBytes: 1000, holdMs: 3_000 });
      const u = await updater({ stallTimeoutMs: 10_000 });
      // Close once the artifact response has started (the server then holds the rest back).
      const pulling = new Promise<void>((resolve) =>
        u.on((event) => {
          if (event.type === 'progress') resolve();
        }),
      );
      const run = u.update();
      await pulling;
      await u.close();
      await refusedAndUnchanged(before, run, 'ABORTED');
      server.setArtifactAttack('app.bin', undefined);
      expect((await (await updater()).update()).outcome).toBe('applied');
    });
  });

  it('keeps only its own form of the live set on disk', async () => {
    await installV1();
    const names = await readdir(dir);
    expect(names.includes('current.json')).toBe(strategy === 'pointer');
    expect(names.includes('current')).toBe(strategy === 'symlink');
  });
});
