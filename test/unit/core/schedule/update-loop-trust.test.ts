/**
 * The run around verification (docs/PROTOCOL.md §2.7.5): the nonce from the injected CSPRNG
 * sent as ?nonce= (a new one per attempt), the whole chain fetched from GET /api/updates/keys
 * only when the answer's links cannot reach the trusted key set, trust recorded in the one
 * state write of acceptance, and a refused answer that moves nothing.
 */
import { describe, expect, it } from 'vitest';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import { resolveLimits } from '#core/limits.js';
import { silentLogger } from '#core/ports.js';
import { createUpdateLoop } from '#core/schedule/update-loop.js';
import { pinKeys } from '#core/trust/verify.js';
import { encodeKeysAnswer, type DsseEnvelope, type Release } from '#protocol';
import {
  answerOf,
  newKeys,
  signFreshness,
  signRelease,
  statementFor,
  TestChain,
} from '#test/trust-kit.js';
import {
  envelopeBytes,
  FakeTime,
  manifestOf,
  immediateTimers,
  MemoryStore,
  ScriptedFetcher,
  sha256Hex,
  T0,
  text,
} from '#test/fakes.js';
import { loopDeps } from '#test/update-loop-kit.js';

const APP = text('app bytes');

function registry() {
  const chain = new TestChain();
  let sequence = 1;
  let release: DsseEnvelope;
  let links: ((all: readonly DsseEnvelope[]) => readonly DsseEnvelope[]) | undefined;
  let nonceEcho = true;
  const publish = (version: string): void => {
    const sha256 = sha256Hex(APP);
    const r: Release = {
      registry_version: version,
      artifacts: [{ name: 'app.bin', size: APP.length, sha256, url: `blobs/${sha256}` }],
    };
    release = signRelease(r, chain.current.release);
    sequence++;
  };
  publish('1.0.0');
  const fetcher = new ScriptedFetcher((req) => {
    const url = new URL(req.url);
    if (url.pathname.endsWith('/api/updates/keys')) {
      return { chunks: [encodeKeysAnswer(chain.links)] };
    }
    if (url.pathname.endsWith('/api/updates/manifest')) {
      const nonce = url.searchParams.get('nonce') ?? undefined;
      const statement = statementFor(
        release,
        chain.current.version,
        sequence,
        T0 - 60_000,
        86_400_000,
        nonceEcho ? nonce : undefined,
      );
      const keys = links?.(chain.links) ?? chain.links.slice(-8);
      return {
        chunks: [answerOf(keys, release, signFreshness(statement, chain.current.freshness))],
      };
    }
    return { chunks: [APP] };
  });
  return {
    chain,
    fetcher,
    publish,
    servedLinks(fn: typeof links) {
      links = fn;
    },
    echoNonce(on: boolean) {
      nonceEcho = on;
    },
    requests: (path: string) => fetcher.seen.filter((r) => new URL(r.url).pathname.endsWith(path)),
  };
}

function setup(requireNonce = false) {
  const reg = registry();
  const store = new MemoryStore();
  let counter = 0;
  const updater = createUpdateLoop({
    fetcher: reg.fetcher,
    store,
    clock: new FakeTime(),
    timers: immediateTimers,
    random: () => 0.5,
    // A deterministic "CSPRNG": byte i of call n is n + i.
    randomBytes: (length) => {
      counter++;
      return Uint8Array.from({ length }, (_, i) => (counter + i) & 0xff);
    },
    requireNonce,
    logger: silentLogger,
    endpoint: parseEndpoint('http://updates.test/', 'mk'),
    pinned: pinKeys([reg.chain.pinned.hex]),
    limits: resolveLimits({ retryBaseDelayMs: 1, retryMaxDelayMs: 2 }),
  });
  return { reg, store, updater };
}

describe('update loop, answer format 2', () => {
  it('records the trusted key set and freshness floor in the acceptance state', async () => {
    const { store, updater } = setup();
    expect((await updater.update()).outcome).toBe('applied');
    expect(store.state.trust?.keySet.version).toBe(1);
    expect(store.state.freshness?.sequence).toBe(2);
    expect(store.state.installed?.setId).toBe(store.state.releaseDigests['1.0.0']);
  });

  it('sends 16 bytes of the injected CSPRNG as ?nonce= (base64url) under requireNonce', async () => {
    const { reg, updater } = setup(true);
    await updater.check();
    await updater.check();
    const sent = reg
      .requests('/api/updates/manifest')
      .map((r) => new URL(r.url).searchParams.get('nonce'));
    const expected = (n: number) =>
      Buffer.from(Uint8Array.from({ length: 16 }, (_, i) => n + i)).toString('base64url');
    expect(sent).toEqual([expected(1), expected(2)]);
  });

  it('sends no nonce without requireNonce', async () => {
    const { reg, updater } = setup();
    await updater.check();
    expect(reg.requests('/api/updates/manifest').map((r) => new URL(r.url).search)).toEqual(['']);
  });

  it('refuses an answer without the nonce (NONCE_MISMATCH) and moves no trust', async () => {
    const { reg, store, updater } = setup(true);
    await updater.update();
    const trusted = { trust: store.state.trust, freshness: store.state.freshness };
    reg.echoNonce(false);
    reg.publish('2.0.0');
    await expect(updater.update()).rejects.toMatchObject({ code: 'NONCE_MISMATCH' });
    expect({ trust: store.state.trust, freshness: store.state.freshness }).toEqual(trusted);
    expect(store.state.highestAcceptedVersion).toBe('1.0.0');
    expect(store.state.lastError?.code).toBe('NONCE_MISMATCH');
  });

  it('fetches GET /api/updates/keys only when the links cannot reach the trusted key set', async () => {
    const { reg, store, updater } = setup();
    await updater.update();
    reg.chain.rotate({ freshness: newKeys(1) });
    await updater.check();
    expect(reg.requests('/api/updates/keys')).toHaveLength(0);
    for (let i = 0; i < 3; i++) reg.chain.rotate({ root: newKeys(1) });
    reg.servedLinks((all) => all.slice(-1));
    reg.publish('2.0.0');
    expect((await updater.update()).version).toBe('2.0.0');
    expect(reg.requests('/api/updates/keys')).toHaveLength(1);
    expect(store.state.trust?.keySet.version).toBe(5);
  });

  it('refuses a format 1 answer once a key set is trusted (FORMAT_DOWNGRADE)', async () => {
    const { reg, store, updater } = setup();
    await updater.update();
    const before = store.state;
    const pinned = reg.chain.pinned;
    const formatOne = envelopeBytes(
      manifestOf('2.0.0', [{ name: 'app.bin', content: APP }]),
      pinned,
    );
    const stripped = new ScriptedFetcher(() => ({ chunks: [formatOne] }));
    const u = createUpdateLoop(loopDeps(stripped, store, reg.chain.pinned.hex));
    await expect(u.check()).rejects.toMatchObject({ code: 'FORMAT_DOWNGRADE' });
    expect(store.state.trust).toEqual(before.trust);
  });

  it('refuses requireNonce without a randomBytes port (CONFIG_INVALID)', () => {
    expect(() =>
      createUpdateLoop({
        fetcher: new ScriptedFetcher(() => ({})),
        store: new MemoryStore(),
        clock: new FakeTime(),
        timers: immediateTimers,
        random: () => 0.5,
        logger: silentLogger,
        pinned: [],
        limits: resolveLimits({}),
        requireNonce: true,
      }),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
