import { describe, expect, it } from 'vitest';
import { targetsFor } from '#server/updates/tuf/tuf-targets.js';

const artifact = { name: 'a.txt', size: 3, sha256: 'a'.repeat(64), url: 'x' };

describe('targets metadata custom fields', () => {
  it('carries the release notes beside registry_version, signed with the targets', () => {
    const signed = targetsFor(
      { registry_version: '2.0.0', artifacts: [artifact], notes: '- faster' },
      3,
      0,
    );
    expect(signed['custom']).toEqual({ registry_version: '2.0.0', notes: '- faster' });
  });

  it('a release without notes has no notes field', () => {
    const signed = targetsFor({ registry_version: '2.0.0', artifacts: [artifact] }, 3, 0);
    expect(signed['custom']).toEqual({ registry_version: '2.0.0' });
  });
});
