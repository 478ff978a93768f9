import { describe, expect, it } from 'vitest';
import { EMPTY_STATE, encodeState, parseState } from '../../../src/core/state.js';
import { text } from './fakes.js';

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
    expect(() => parseState(text('{"schema":2}'))).toThrow(
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
