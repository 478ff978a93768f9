import { describe, expect, it } from 'vitest';
import { looksLikeTuf, verifyStoredTargets } from '#core/trust/tuf-installed.js';
import { newKey } from '#test/trust-kit.js';
import { roleKeys, signedRoot, signedTargets } from '#test/tuf-metadata-kit.js';

const NOW = Date.UTC(2026, 10, 1);
const keys = roleKeys();
const root = signedRoot(keys, 1, NOW);
const files = [{ path: 'bin/app', length: 3, sha256: 'a'.repeat(64) }];

describe('verify of a set installed under TUF', () => {
  it('tells TUF metadata from a DSSE envelope by its shape', () => {
    expect(looksLikeTuf(signedTargets(keys.targets, '1.0.0', files, NOW))).toBe(true);
    expect(looksLikeTuf(new TextEncoder().encode('{"payloadType":"x"}'))).toBe(false);
  });

  it('re-checks the kept targets under the stored root, long after they expired', async () => {
    const bytes = signedTargets(keys.targets, '1.0.0', files, NOW);
    const record = await verifyStoredTargets(bytes, root, NOW + 400 * 86_400_000);
    expect(record.version).toBe('1.0.0');
    expect(record.artifacts.map((a) => [a.name, a.size, a.sha256])).toEqual([
      ['bin/app', 3, 'a'.repeat(64)],
    ]);
  });

  it('refuses targets signed by a key the stored root never listed, and a missing root', async () => {
    const forged = signedTargets(newKey(), '1.0.0', files, NOW);
    await expect(verifyStoredTargets(forged, root, NOW)).rejects.toThrow(
      expect.objectContaining({ code: 'THRESHOLD_NOT_MET' }),
    );
    const bytes = signedTargets(keys.targets, '1.0.0', files, NOW);
    await expect(verifyStoredTargets(bytes, undefined, NOW)).rejects.toThrow(
      expect.objectContaining({ code: 'STATE_CORRUPT' }),
    );
  });
});
