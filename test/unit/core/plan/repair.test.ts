import { describe, expect, it } from 'vitest';
import { repairDir, repairPlan } from '#core/plan/repair.js';
import type { InstalledSet } from '#core/state.js';
import { pinKeys, verifyManifest } from '#core/trust/verify.js';
import { envelopeBytes, manifestOf, sha256Hex, testKey, text } from '#test/fakes.js';

const key = testKey();
const FILES = [
  { name: 'a.txt', content: text('a one') },
  { name: 'b.txt', content: text('b one, longer') },
];
const verified = verifyManifest(
  envelopeBytes(manifestOf('1.0.0', FILES), key),
  pinKeys([key.hex]),
  1 << 20,
);
const installed: InstalledSet = {
  setId: verified.setId,
  version: '1.0.0',
  artifacts: FILES.map((f) => ({
    name: f.name,
    size: f.content.length,
    sha256: sha256Hex(f.content),
  })),
};

describe('repair', () => {
  it('plans the damaged names as to fetch and the intact ones as reused, same version', () => {
    const plan = repairPlan(installed, ['b.txt'], verified);
    expect(plan).toMatchObject({
      fromVersion: '1.0.0',
      toVersion: '1.0.0',
      fetch: [{ name: 'b.txt', size: 13 }],
      reuse: [{ name: 'a.txt', size: 5 }],
      remove: [],
      bytesToFetch: 13,
      bytesToReuse: 5,
    });
  });

  it('names a fresh 64-hex set directory, different from the setId and per time', () => {
    const dir = repairDir(installed.setId, 1000);
    expect(dir).toMatch(/^[0-9a-f]{64}$/);
    expect(dir).not.toBe(installed.setId);
    expect(repairDir(installed.setId, 1001)).not.toBe(dir);
    expect(repairDir(installed.setId, 1000)).toBe(dir);
  });
});
