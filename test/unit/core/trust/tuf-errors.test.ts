import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { fromTufError } from '#core/trust/index.js';
import { TufError } from '#core/tuf/index.js';

const NOW = Date.UTC(2026, 0, 1);
const map = (e: TufError) => fromTufError(e, NOW);

describe('fromTufError', () => {
  it('keeps the format 1/2 code where the meaning is the same, with the TUF code beside it', () => {
    const e = map(new TufError('THRESHOLD_NOT_MET', 'targets: 0 valid', { role: 'targets' }));
    expect(e.code).toBe('THRESHOLD_NOT_MET');
    expect(e.details).toEqual({ role: 'targets', tuf_code: 'THRESHOLD_NOT_MET' });
    expect(map(new TufError('LENGTH_MISMATCH', 'x')).code).toBe('SIZE_MISMATCH');
    expect(map(new TufError('HASH_MISMATCH', 'x')).code).toBe('HASH_MISMATCH');
    expect(map(new TufError('ROLLBACK', 'x')).code).toBe('ROLLBACK');
    expect(map(new TufError('KEY_RETIRED', 'x')).code).toBe('KEY_RETIRED');
    expect(map(new TufError('JSON_DUPLICATE_MEMBER', 'x')).code).toBe('ENVELOPE_MALFORMED');
  });

  it('names an expiry with the local clock, and the freeze bound as its own code', () => {
    const expired = map(new TufError('EXPIRED', 'timestamp v3 expired'));
    expect(expired.code).toBe('MANIFEST_EXPIRED');
    expect(expired.message).toContain('2026-01-01T00:00:00.000Z');
    expect(map(new TufError('TIMESTAMP_LIFETIME', 'x')).code).toBe('TIMESTAMP_LIFETIME');
  });

  it('tells a root that is not N+1 (KEY_CHAIN_GAP) from a snapshot version mismatch', () => {
    expect(map(new TufError('BAD_VERSION', 'expected root v2, got v3')).code).toBe('KEY_CHAIN_GAP');
    expect(map(new TufError('BAD_VERSION', 'expected snapshot v2, got v3')).code).toBe(
      'FRESHNESS_MISMATCH',
    );
  });

  it('makes a fetch failure transient and passes an UpdateError through', () => {
    expect(map(new TufError('FETCH_FAILED', 'x')).transient).toBe(true);
    const own = new UpdateError('UNAUTHORIZED', 'no');
    expect(fromTufError(own, NOW)).toBe(own);
    expect(() => fromTufError(new Error('bug'), NOW)).toThrow('bug');
  });
});
