import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits } from '#core/limits.js';
import { pinKeys, verifyManifest } from '#core/trust/verify.js';
import type { Manifest } from '#protocol';
import { envelopeBytes, testKey } from '#test/fakes.js';

describe('resolveLimits', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_LIMITS).toMatchObject({
      parallel: 4,
      retries: 3,
      stallTimeoutMs: 30_000,
      minBytesPerS: 1024,
      throughputWindowMs: 10_000,
      maxManifestBytes: 8 * 1024 * 1024,
      maxArtifactBytes: 4 * 1024 ** 3,
      maxArtifacts: 10_000,
      connectTimeoutMs: 10_000,
    });
  });

  it('lets a manifest of the default maxArtifacts entries fit the default maxManifestBytes', () => {
    // 10,000 entries with 60-character names and URLs naming digest and name, as the server
    // writes them: the two defaults must be reachable together.
    const key = testKey();
    const artifacts = Array.from({ length: DEFAULT_LIMITS.maxArtifacts }, (_, i) => {
      const name = `resources/app/node_modules/pkg/${String(i).padStart(5, '0')}/index.module.js`;
      const sha256 = createHash('sha256').update(name).digest('hex');
      return { name, size: 1000 + i, sha256, url: `artifacts/${sha256}/${name}` };
    });
    const manifest: Manifest = {
      registry_version: '1.0.0',
      issued_at: '2026-01-01T00:00:00.000Z',
      expires_at: '2026-01-02T00:00:00.000Z',
      artifacts,
    };
    const bytes = envelopeBytes(manifest, key);
    const limits = resolveLimits();
    expect(bytes.length).toBeGreaterThan(1024 * 1024);
    expect(
      verifyManifest(bytes, pinKeys([key.hex]), limits.maxManifestBytes).manifest.artifacts,
    ).toHaveLength(limits.maxArtifacts);
  });

  it('derives maxManifestBytes from a raised maxArtifacts (512 bytes per entry plus slack)', () => {
    const limits = resolveLimits({ maxArtifacts: 50_000 });
    expect(limits.maxManifestBytes).toBe(50_000 * 512 + 3 * 1024 * 1024);
  });

  it('keeps an explicit maxManifestBytes', () => {
    expect(resolveLimits({ maxArtifacts: 50_000, maxManifestBytes: 4096 }).maxManifestBytes).toBe(
      4096,
    );
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
