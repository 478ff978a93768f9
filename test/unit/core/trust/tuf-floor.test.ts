import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tuf } from '#protocol';
import type { LocalStore } from '#core/ports.js';
import type { UpdaterState } from '#core/state.js';
import { tufFloor } from '#core/trust/index.js';
import { newKey } from '#test/trust-kit.js';
import { roleKeys, signedRoot, signedTargets } from '#test/tuf-metadata-kit.js';

const NOW = Date.UTC(2026, 10, 1);
const keys = roleKeys();
const root = tuf.parseEnvelope(signedRoot(keys, 1, NOW), 'root').signed;
const digest = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function installedFrom(bytes: Uint8Array | undefined, version = '9.0.0') {
  const setId = bytes === undefined ? 'a'.repeat(64) : digest(bytes);
  const store = { loadEnvelope: () => Promise.resolve(bytes) } as unknown as LocalStore;
  const state = { installed: { setId, version } } as unknown as UpdaterState;
  return { store, state };
}

describe('tufFloor (docs/SECURITY.md, "Rollback floors under TUF")', () => {
  it('is the installed version while its targets still meet the targets role', async () => {
    const bytes = signedTargets(keys.targets, '9.0.0', [], NOW);
    const { store, state } = installedFrom(bytes);
    expect(await tufFloor(store, state, root, 'b'.repeat(64))).toBe('9.0.0');
  });

  it('ends once the targets role no longer lists the key that signed it (a rotation)', async () => {
    const stolen = newKey();
    const bytes = signedTargets(stolen, '9007199254740991.0.0', [], NOW);
    const { store, state } = installedFrom(bytes);
    expect(await tufFloor(store, state, root, 'b'.repeat(64))).toBeNull();
  });

  it('is none for a set installed under format 1/2 and for no set at all', async () => {
    const dsse = new TextEncoder().encode('{"payloadType":"x","payload":"","signatures":[]}');
    const { store, state } = installedFrom(dsse);
    expect(await tufFloor(store, state, root, 'b'.repeat(64))).toBeNull();
    const none = { installed: null } as unknown as UpdaterState;
    expect(await tufFloor(store, none, root, 'b'.repeat(64))).toBeNull();
  });

  it('reads the top-level targets of a release record (delegated roles)', async () => {
    const record = (top: Uint8Array) =>
      new TextEncoder().encode(
        `{"tuf_release":1,"roles":${JSON.stringify([
          ['targets', Buffer.from(top).toString('base64')],
          ['plugins', Buffer.from('{}').toString('base64')],
        ])}}`,
      );
    const genuine = installedFrom(record(signedTargets(keys.targets, '9.0.0', [], NOW)));
    expect(await tufFloor(genuine.store, genuine.state, root, 'b'.repeat(64))).toBe('9.0.0');
    const stolen = installedFrom(record(signedTargets(newKey(), '99.0.0', [], NOW)));
    expect(await tufFloor(stolen.store, stolen.state, root, 'b'.repeat(64))).toBeNull();
  });

  it('needs no check when the targets did not change', async () => {
    const { store, state } = installedFrom(undefined, '3.0.0');
    expect(await tufFloor(store, state, root, 'a'.repeat(64))).toBe('3.0.0');
  });
});
