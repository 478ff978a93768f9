import { describe, expect, it } from 'vitest';
import {
  EMPTY_STATE,
  encodeState,
  keepFloor,
  parseState,
  trustedKeySet,
  trustedKeysOf,
} from '#core/state.js';
import { encodeKeySet, parseKeySet } from '#protocol';
import { newKeys, payloadOf, TestChain } from '#test/trust-kit.js';
import { text } from '#test/fakes.js';
import { EMPTY_HEALTH } from '#core/health-state.js';

const SET = {
  setId: 'a'.repeat(64),
  version: '1.0.0',
  artifacts: [{ name: 'x', size: 1, sha256: 'b'.repeat(64) }],
};

describe('state file', () => {
  it('round-trips a full state', () => {
    const state = {
      ...EMPTY_STATE,
      highestAcceptedVersion: '1.0.0',
      acceptedDigests: { '1.0.0': 'a'.repeat(64) },
      installed: SET,
      lastError: { code: 'NETWORK' as const, message: 'x' },
      lastCheckAtMs: 5,
    };
    expect(parseState(encodeState(state))).toEqual(state);
  });

  it('round-trips a repaired set staged under its own directory', () => {
    const state = { ...EMPTY_STATE, installed: { ...SET, dir: 'c'.repeat(64) }, previous: SET };
    expect(parseState(encodeState(state))).toEqual(state);
  });

  it('refuses a set directory that is not 64 hex (STATE_CORRUPT)', () => {
    const state = { ...EMPTY_STATE, installed: { ...SET, dir: '../escape' } };
    expect(() => parseState(encodeState(state))).toThrow(
      expect.objectContaining({ code: 'STATE_CORRUPT' }),
    );
  });

  it('refuses bytes that are not JSON (STATE_CORRUPT)', () => {
    expect(() => parseState(text('{'))).toThrow(expect.objectContaining({ code: 'STATE_CORRUPT' }));
  });

  it('refuses an unknown schema (STATE_CORRUPT)', () => {
    expect(() => parseState(text('{"schema":3}'))).toThrow(
      expect.objectContaining({ code: 'STATE_CORRUPT' }),
    );
  });

  it('refuses a bad floor version (STATE_CORRUPT)', () => {
    const bad = { ...EMPTY_STATE, highestAcceptedVersion: 'v1' };
    expect(() => parseState(text(JSON.stringify(bad)))).toThrow(
      expect.objectContaining({ code: 'STATE_CORRUPT' }),
    );
  });

  it('refuses an installed set with a bad digest (STATE_CORRUPT)', () => {
    const bad = {
      ...EMPTY_STATE,
      installed: { ...SET, artifacts: [{ name: 'x', size: 1, sha256: 'z' }] },
    };
    expect(() => parseState(text(JSON.stringify(bad)))).toThrow(
      expect.objectContaining({ code: 'STATE_CORRUPT' }),
    );
  });
});

describe('state schema 2 (docs/PROTOCOL.md §2.7.5, §2.7.7)', () => {
  const chain = new TestChain();
  const trust = trustedKeysOf(parseKeySet(encodeKeySet(payloadOf(chain.current))), [
    'c'.repeat(64),
  ]);
  const TRUSTED = {
    ...EMPTY_STATE,
    highestAcceptedVersion: '1.0.0',
    releaseDigests: { '1.0.0': 'd'.repeat(64) },
    trust,
    freshness: { sequence: 42, releaseSha256: 'd'.repeat(64) },
  };

  it('round-trips the trusted key set, retired keyids and freshness floor', () => {
    expect(parseState(encodeState(TRUSTED))).toEqual(TRUSTED);
    expect(JSON.parse(new TextDecoder().decode(encodeState(TRUSTED)))).toMatchObject({ schema: 2 });
    expect(trustedKeySet(trust).version).toBe(1);
  });

  it('loads a schema 1 file with no trusted key set', () => {
    const schemaOne = {
      schema: 1,
      highestAcceptedVersion: '1.0.0',
      acceptedDigests: { '1.0.0': 'a'.repeat(64) },
      installed: SET,
      previous: null,
      lastCheckAtMs: 1,
      lastSuccessAtMs: 1,
      lastError: null,
    };
    const state = parseState(text(JSON.stringify(schemaOne)));
    expect(state).toEqual({
      ...schemaOne,
      schema: 2,
      releaseDigests: {},
      trust: null,
      freshness: null,
      health: EMPTY_HEALTH,
    });
  });

  it('refuses a key set that is not one, too many retired keyids, or a floor without a key set (STATE_CORRUPT)', () => {
    const bad = [
      { ...TRUSTED, trust: { ...trust, keySet: { ...trust.keySet, version: 0 } } },
      {
        ...TRUSTED,
        trust: { ...trust, retired: Array.from({ length: 257 }, () => 'c'.repeat(64)) },
      },
      { ...TRUSTED, trust: { ...trust, retired: ['nope'] } },
      { ...TRUSTED, trust: null },
      { ...TRUSTED, freshness: { sequence: 0, releaseSha256: 'd'.repeat(64) } },
      { ...TRUSTED, releaseDigests: { v1: 'd'.repeat(64) } },
    ];
    for (const state of bad) {
      expect(() => parseState(text(JSON.stringify(state)))).toThrow(
        expect.objectContaining({ code: 'STATE_CORRUPT' }),
      );
    }
  });

  it('keepFloor keeps the newer key set with its floor, and the higher floor of one key set', () => {
    const older = { ...TRUSTED, freshness: { sequence: 40, releaseSha256: 'd'.repeat(64) } };
    expect(keepFloor(older, TRUSTED).freshness?.sequence).toBe(42);
    expect(keepFloor(TRUSTED, older).freshness?.sequence).toBe(42);
    chain.rotate({ freshness: newKeys(1) });
    const newer = {
      ...TRUSTED,
      trust: trustedKeysOf(parseKeySet(encodeKeySet(payloadOf(chain.current))), []),
      freshness: { sequence: 1, releaseSha256: 'd'.repeat(64) },
    };
    expect(keepFloor(TRUSTED, newer)).toMatchObject({
      trust: newer.trust,
      freshness: newer.freshness,
    });
    expect(keepFloor(newer, TRUSTED)).toMatchObject({
      trust: newer.trust,
      freshness: newer.freshness,
    });
    expect(keepFloor(EMPTY_STATE, TRUSTED).releaseDigests).toEqual(TRUSTED.releaseDigests);
  });
});
