/**
 * The format 2 adversarial suite (docs/SECURITY.md §5, docs/PROTOCOL.md §2.7.5): one named test
 * per attack against the hostile format 2 server (test/helpers/hostile-trust-server.ts). Every
 * refusal test installs an honest 1.0.0 first, then attacks, and asserts the error code, that
 * DIR/current is byte-identical (names + SHA-256 of every file) and that the trust the state
 * file records (key set, retired keyids, freshness floor, digests) did not move.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UpdateErrorCode } from '#core/errors.js';
import { parseState, type UpdaterState } from '#core/state.js';
import type { UpdaterApi } from '#core/updater-api.js';
import type { NodeUpdaterOptions } from '#node/create-updater.js';
import {
  addSignatures,
  encodeManifest,
  RELEASE_PAYLOAD_TYPE,
  signEnvelope,
  type DsseEnvelope,
} from '#protocol';
import { startHostileTrustServer, type HostileTrustServer } from '#test/hostile-trust-server.js';
import { snapshotObject, snapshotTree } from '#test/tree-snapshot.js';
import { answerOf, newKeys, TestChain } from '#test/trust-kit.js';
import {
  bytesOf,
  cliArgs,
  expectRefusal,
  openUpdater,
  runCli,
  tempDirs,
} from '#test/updater-harness.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const V1 = [
  { name: 'app.bin', content: bytesOf(32 * 1024, 11) },
  { name: 'readme.txt', content: text('version one\n') },
];
const V2 = [
  { name: 'app.bin', content: bytesOf(40 * 1024, 12) },
  { name: 'readme.txt', content: text('version two\n') },
];
const DAY_MS = 86_400_000;

const dirs = tempDirs();
let server: HostileTrustServer;
let dir: string;
const updaters: UpdaterApi[] = [];

/** A fresh updater (a restart) whose clock is the server's (real time plus its offset). */
async function updater(options: Partial<NodeUpdaterOptions> = {}): Promise<UpdaterApi> {
  await Promise.all(updaters.splice(0).map((x) => x.close()));
  const u = await openUpdater(server, dir, {
    clock: { nowMs: () => server.now() },
    ...options,
  });
  updaters.push(u);
  return u;
}

async function stateOf(): Promise<UpdaterState> {
  return parseState(await readFile(join(dir, '.updater', 'state.json')));
}

/** What a refused answer must never move. */
function trustOf(state: UpdaterState) {
  const { trust, freshness, releaseDigests, acceptedDigests, highestAcceptedVersion } = state;
  return { trust, freshness, releaseDigests, acceptedDigests, highestAcceptedVersion };
}

/** Installs the honest 1.0.0 over format 2 and returns the snapshot of DIR/current. */
async function installV1(): Promise<Map<string, string>> {
  server.publish('1.0.0', V1);
  const result = await (await updater()).update();
  expect(result.outcome).toBe('applied');
  expect((await stateOf()).trust).not.toBeNull();
  server.resetCounters();
  return new Map(await snapshotTree(join(dir, 'current')));
}

/** The attack ran: the code, DIR/current byte-identical, the recorded trust unmoved. */
async function refusedAndUnchanged(
  before: Map<string, string>,
  run: () => Promise<unknown>,
  code: UpdateErrorCode,
): Promise<void> {
  const trusted = trustOf(await stateOf());
  await expectRefusal(run(), code);
  expect(snapshotObject(await snapshotTree(join(dir, 'current')))).toEqual(snapshotObject(before));
  expect(trustOf(await stateOf())).toEqual(trusted);
  expect(server.bytesServed()).toBe(0);
}

/** An answer with the honest links and statement around another release. */
const withRelease =
  (release: DsseEnvelope) =>
  (honest: { keys: readonly DsseEnvelope[]; freshness: DsseEnvelope }): Uint8Array =>
    answerOf(honest.keys, release, honest.freshness);

beforeEach(async () => {
  // Release role 2 of 3, so "below the threshold" has a meaning.
  server = await startHostileTrustServer(
    undefined,
    new TestChain(undefined, { release: newKeys(3), releaseThreshold: 2 }),
  );
  dir = await dirs.make('qa-trust-');
});

afterEach(async () => {
  await Promise.all(updaters.splice(0).map((u) => u.close()));
  await server.close();
  await dirs.cleanup();
});

describe('release role and thresholds', () => {
  it('refuses a release signed below its threshold: one of the two release keys needed (THRESHOLD_NOT_MET)', async () => {
    const before = await installV1();
    server.publish('2.0.0', V2, server.chain.current.release.slice(0, 1));
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'THRESHOLD_NOT_MET');
  });

  it('a server holding only the freshness key cannot get any new artifact installed (THRESHOLD_NOT_MET)', async () => {
    const before = await installV1();
    const stolen = server.chain.current.freshness;
    // A new version, and a new 1.0.0, each signed by the freshness key and vouched for by a
    // valid statement from the same key: neither gets a byte downloaded.
    server.publish('2.0.0', V2, stolen);
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'THRESHOLD_NOT_MET');
    server.publish('1.0.0', V2, stolen);
    await refusedAndUnchanged(before, async () => (await updater()).check(), 'THRESHOLD_NOT_MET');
  });

  it('refuses a release signed only by retired release keys after a rotation (KEY_RETIRED)', async () => {
    await installV1();
    const old = server.chain.current.release;
    const fresh = newKeys(3);
    // The honest rotation: the current release is co-signed by the new keys first.
    server.serveRelease(addSignatures(server.release, fresh.slice(0, 2)));
    server.rotate({ release: fresh });
    const u = await updater();
    expect((await u.update()).outcome).toBe('up-to-date');
    expect((await stateOf()).trust?.keySet.version).toBe(2);
    // verify() checks the installed release under the new release role: its stored bytes
    // were refreshed with the co-signed release.
    expect((await u.verify()).ok).toBe(true);
    const before = new Map(await snapshotTree(join(dir, 'current')));
    server.publish('2.0.0', V2, old.slice(0, 2));
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'KEY_RETIRED');
  });
});

describe('key chain', () => {
  it('refuses a rotation signed only by the new root keys (THRESHOLD_NOT_MET)', async () => {
    const before = await installV1();
    const attacker = newKeys(1);
    server.rotate({ root: attacker, release: newKeys(2), freshness: newKeys(1) }, attacker);
    server.publish('2.0.0', V2);
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'THRESHOLD_NOT_MET');
  });

  it('refuses a rotation chain with a gap in the answer (KEY_CHAIN_GAP)', async () => {
    const before = await installV1();
    server.rotate({ freshness: newKeys(1) });
    server.rotate({ freshness: newKeys(1) });
    server.publish('2.0.0', V2);
    const [v1, , v3] = server.chain.links;
    server.setAttack((honest) => answerOf([v1!, v3!], honest.release, honest.freshness));
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'KEY_CHAIN_GAP');
  });

  it('refuses a gap in the whole chain fetched from GET /api/updates/keys (KEY_CHAIN_GAP)', async () => {
    const before = await installV1();
    server.rotate({ freshness: newKeys(1) });
    server.rotate({ freshness: newKeys(1) });
    server.publish('2.0.0', V2);
    const [v1, , v3] = server.chain.links;
    // The answer starts past the trusted key set + 1, so the client asks for the whole chain.
    server.setAttack((honest) => answerOf([v3!], honest.release, honest.freshness));
    server.setKeysAnswer([v1!, v3!]);
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'KEY_CHAIN_GAP');
    expect(server.keysRequests).toBe(1);
  });

  it('refuses a statement that hides the newest rotation (FRESHNESS_MISMATCH)', async () => {
    const before = await installV1();
    const oldFreshness = server.chain.current.freshness;
    server.rotate({ freshness: newKeys(1) });
    server.publish('2.0.0', V2);
    // The old freshness key names key set 2, served beside the links up to key set 1.
    const links = server.chain.links.slice(0, 1);
    server.setAttack((honest) =>
      answerOf(links, honest.release, server.statement({ keysVersion: 2, signers: oldFreshness })),
    );
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'FRESHNESS_MISMATCH');
  });
});

describe('freshness statements', () => {
  it('refuses an expired freshness statement (MANIFEST_EXPIRED)', async () => {
    const before = await installV1();
    server.publish('2.0.0', V2);
    server.setAttack((honest) =>
      answerOf(
        honest.keys,
        honest.release,
        server.statement({ issuedAtMs: server.now() - 2 * DAY_MS, lifetimeMs: DAY_MS }),
      ),
    );
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'MANIFEST_EXPIRED');
  });

  it('freeze: the exact answer installed, replayed after its statement expired (MANIFEST_EXPIRED)', async () => {
    server.publish('1.0.0', V1);
    const installed = server.honest();
    const bytes = answerOf(installed.keys, installed.release, installed.freshness);
    server.setAttack(() => bytes);
    expect((await (await updater()).update()).outcome).toBe('applied');
    const before = new Map(await snapshotTree(join(dir, 'current')));
    server.resetCounters();
    server.offsetMs = 2 * DAY_MS;
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'MANIFEST_EXPIRED');
  });

  it('refuses a lower freshness sequence replayed (FRESHNESS_ROLLBACK)', async () => {
    await installV1();
    const replayed = server.sequence;
    server.resign();
    server.resign();
    expect((await (await updater()).update()).outcome).toBe('up-to-date');
    expect((await stateOf()).freshness?.sequence).toBe(replayed + 2);
    const before = new Map(await snapshotTree(join(dir, 'current')));
    server.setAttack((honest) =>
      answerOf(honest.keys, honest.release, server.statement({ sequence: replayed })),
    );
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'FRESHNESS_ROLLBACK');
  });

  it('refuses a freshness statement over another release (FRESHNESS_MISMATCH)', async () => {
    const before = await installV1();
    const r1 = server.release;
    server.publish('2.0.0', V2);
    server.setAttack((honest) =>
      answerOf(honest.keys, honest.release, server.statement({ release: r1 })),
    );
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'FRESHNESS_MISMATCH');
  });

  it('refuses a new freshness statement mixed with an old release (FRESHNESS_MISMATCH)', async () => {
    server.publish('1.0.0', V1);
    const r1 = server.release;
    await (await updater()).update();
    server.publish('2.0.0', V2);
    expect((await (await updater()).update()).version).toBe('2.0.0');
    const before = new Map(await snapshotTree(join(dir, 'current')));
    server.resetCounters();
    server.resign();
    // The newest statement (it names 2.0.0) beside the old, still validly signed release.
    server.setAttack(withRelease(r1));
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'FRESHNESS_MISMATCH');
  });

  it('a stolen freshness key vouching for an old release again is refused (ROLLBACK)', async () => {
    server.publish('1.0.0', V1);
    const r1 = server.release;
    await (await updater()).update();
    server.publish('2.0.0', V2);
    expect((await (await updater()).update()).version).toBe('2.0.0');
    const before = new Map(await snapshotTree(join(dir, 'current')));
    server.resetCounters();
    server.resign();
    server.serveRelease(r1);
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'ROLLBACK');
  });

  it('refuses one sequence vouching for two releases (EQUIVOCATION)', async () => {
    const before = await installV1();
    const seen = server.sequence;
    server.publish('2.0.0', V2);
    server.setAttack((honest) =>
      answerOf(honest.keys, honest.release, server.statement({ sequence: seen })),
    );
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'EQUIVOCATION');
  });

  it('refuses another release of a registry_version already accepted (EQUIVOCATION)', async () => {
    const before = await installV1();
    server.publish('1.0.0', V2);
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'EQUIVOCATION');
  });

  it('accepts a new freshness statement over the same release (no equivocation)', async () => {
    await installV1();
    for (let i = 0; i < 3; i++) {
      server.resign();
      expect((await (await updater()).update()).outcome).toBe('up-to-date');
    }
    expect((await stateOf()).freshness?.sequence).toBe(server.sequence);
  });
});

describe('nonce (requireNonce)', () => {
  it('sends 16 random bytes as ?nonce= and installs an answer signed for it', async () => {
    server.publish('1.0.0', V1);
    const u = await updater({ requireNonce: true });
    expect((await u.update()).outcome).toBe('applied');
    expect((await u.check()).toVersion).toBe('1.0.0');
    expect(server.nonces).toHaveLength(2);
    for (const nonce of server.nonces) expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(server.nonces[0]).not.toBe(server.nonces[1]);
  });

  it('the CLI flag --require-nonce: installs an answer signed for its nonce, refuses one without (exit 1)', async () => {
    server.publish('1.0.0', V1);
    const t = { ...server, dir };
    const ok = await runCli(cliArgs('update', t, ['--require-nonce']));
    expect(ok.json).toMatchObject({ ok: true, outcome: 'applied', version: '1.0.0' });
    expect(server.nonces[0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    server.publish('2.0.0', V2);
    server.setAttack((honest) => answerOf(honest.keys, honest.release, server.statement()));
    const refused = await runCli(cliArgs('update', t, ['--require-nonce']));
    expect(refused.exitCode).toBe(1);
    expect(refused.json).toMatchObject({ ok: false, code: 'NONCE_MISMATCH' });
  });

  it('sends no nonce without requireNonce', async () => {
    await installV1();
    await (await updater()).check();
    expect(server.nonces).toEqual([undefined]);
  });

  it('refuses a statement without the nonce (NONCE_MISMATCH)', async () => {
    const before = await installV1();
    server.publish('2.0.0', V2);
    server.setAttack((honest) => answerOf(honest.keys, honest.release, server.statement()));
    await refusedAndUnchanged(
      before,
      async () => (await updater({ requireNonce: true })).update(),
      'NONCE_MISMATCH',
    );
  });

  it('refuses a statement signed for another nonce (NONCE_MISMATCH)', async () => {
    const before = await installV1();
    server.publish('2.0.0', V2);
    server.setAttack((honest) =>
      answerOf(honest.keys, honest.release, server.statement({ nonce: 'AAAAAAAAAAAAAAAAAAAAAA' })),
    );
    await refusedAndUnchanged(
      before,
      async () => (await updater({ requireNonce: true })).update(),
      'NONCE_MISMATCH',
    );
  });

  it('refuses an answer signed for an earlier request, replayed (NONCE_MISMATCH)', async () => {
    server.publish('1.0.0', V1);
    let captured: Uint8Array | undefined;
    server.setAttack((honest) => {
      captured ??= answerOf(honest.keys, honest.release, honest.freshness);
      return captured;
    });
    expect((await (await updater({ requireNonce: true })).update()).outcome).toBe('applied');
    const before = new Map(await snapshotTree(join(dir, 'current')));
    server.resetCounters();
    await refusedAndUnchanged(
      before,
      async () => (await updater({ requireNonce: true })).update(),
      'NONCE_MISMATCH',
    );
  });

  it('refuses a format 1 answer under requireNonce (NONCE_MISMATCH)', async () => {
    const pinned = server.chain.pinned;
    const manifest = {
      registry_version: '1.0.0',
      issued_at: new Date(server.now() - 60_000).toISOString(),
      expires_at: new Date(server.now() + DAY_MS).toISOString(),
      artifacts: [],
    };
    server.setAttack(() =>
      JSON.stringify(signEnvelope(encodeManifest(manifest), pinned.secretKey, pinned.publicKey)),
    );
    await expectRefusal((await updater({ requireNonce: true })).update(), 'NONCE_MISMATCH');
    expect((await stateOf()).highestAcceptedVersion).toBeNull();
  });
});

describe('format downgrade', () => {
  it('refuses a format 1 answer once a key set is trusted (FORMAT_DOWNGRADE)', async () => {
    const before = await installV1();
    const pinned = server.chain.pinned;
    // A valid format 1 envelope of a new version, signed by the pinned key itself.
    const manifest = {
      registry_version: '2.0.0',
      issued_at: new Date(server.now() - 60_000).toISOString(),
      expires_at: new Date(server.now() + DAY_MS).toISOString(),
      artifacts: [],
    };
    server.setAttack(() =>
      JSON.stringify(signEnvelope(encodeManifest(manifest), pinned.secretKey, pinned.publicKey)),
    );
    await refusedAndUnchanged(before, async () => (await updater()).update(), 'FORMAT_DOWNGRADE');
  });
});

describe('the whole chain from GET /api/updates/keys', () => {
  it('a client 9 rotations behind fetches the chain once and follows it', async () => {
    await installV1();
    for (let i = 0; i < 9; i++) server.rotate({ freshness: newKeys(1) });
    server.publish('2.0.0', V2);
    const result = await (await updater()).update();
    expect(result.version).toBe('2.0.0');
    expect(server.keysRequests).toBe(1);
    const state = await stateOf();
    expect(state.trust?.keySet.version).toBe(10);
    // Every freshness key on the way was retired.
    expect(state.trust?.retired).toHaveLength(9);
  });

  it('a new install pinning the original key after 9 root rotations fetches the chain and installs', async () => {
    // The answer's 8 links (key sets 3 to 10) carry no signature by the pinned key.
    for (let i = 0; i < 9; i++) server.rotate({ root: newKeys(1) });
    server.publish('1.0.0', V1);
    expect((await (await updater()).update()).outcome).toBe('applied');
    expect(server.keysRequests).toBe(1);
  });

  it('refuses a chain from GET /api/updates/keys that a foreign root signed (UNKNOWN_KEY)', async () => {
    for (let i = 0; i < 9; i++) server.rotate({ root: newKeys(1) });
    server.publish('1.0.0', V1);
    const foreign = new TestChain();
    for (let i = 0; i < 9; i++) foreign.rotate({ root: newKeys(1) });
    server.setKeysAnswer(foreign.links);
    await expectRefusal((await updater()).update(), 'UNKNOWN_KEY');
    expect(server.bytesServed()).toBe(0);
  });
});

describe('a release signed by the release role under a fresh key set', () => {
  it('installs, then verify() re-checks the stored release', async () => {
    server.publish('1.0.0', V1);
    const u = await updater();
    expect((await u.update()).outcome).toBe('applied');
    expect(await u.verify()).toEqual({ version: '1.0.0', ok: true, drift: [] });
    const state = await stateOf();
    expect(state.releaseDigests['1.0.0']).toBe(state.installed?.setId);
    // The signed release alone is kept (the freshness statement expires, a release does not).
    const setId = state.installed?.setId ?? '';
    const kept = JSON.parse(
      await readFile(join(dir, '.updater', 'manifests', `${setId}.json`), 'utf8'),
    ) as DsseEnvelope;
    expect(kept.payloadType).toBe(RELEASE_PAYLOAD_TYPE);
    expect(kept.payload).toBe(server.release.payload);
  });
});
