import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits } from '../../../src/core/limits.js';

describe('resolveLimits', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_LIMITS).toMatchObject({
      parallel: 4,
      retries: 3,
      stallTimeoutMs: 30_000,
      minBytesPerS: 1024,
      throughputWindowMs: 10_000,
      maxManifestBytes: 1024 * 1024,
      maxArtifactBytes: 4 * 1024 ** 3,
      maxArtifacts: 10_000,
      connectTimeoutMs: 10_000,
    });
  });

  it('applies overrides and leaves the rest', () => {
    const limits = resolveLimits({ parallel: 2 });
    expect(limits.parallel).toBe(2);
    expect(limits.retries).toBe(3);
  });

  it('refuses a value out of bounds (CONFIG_INVALID)', () => {
    expect(() => resolveLimits({ parallel: 0 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('refuses a non-integer (CONFIG_INVALID)', () => {
    expect(() => resolveLimits({ stallTimeoutMs: 1.5 })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('refuses an unknown limit name (CONFIG_INVALID)', () => {
    expect(() => resolveLimits({ nope: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });
});
