import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fileTrustedRoot,
  judgeTrustedRoot,
  memoryTrustedRoot,
  trustedRootSummary,
} from '#app/settings/trusted-root.js';
import { newKey } from '#test/trust-kit.js';
import { roleKeys, signedRoot } from '#test/tuf-metadata-kit.js';

const NOW = Date.UTC(2026, 10, 1);
const keys = roleKeys();
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('the settings screen’s trusted root', () => {
  it('accepts root metadata signed by a threshold of its own root keys', () => {
    const root = signedRoot(keys, 3, NOW);
    const judged = judgeTrustedRoot(`\n${text(root)}\n`);
    expect(judged).toEqual({ ok: true, bytes: root });
    expect(trustedRootSummary(root)).toContain('version 3, 1 of 1 root keys');
  });

  it('refuses text that is not TUF root metadata, in plain words with the code', () => {
    const notJson = judgeTrustedRoot('{"signed":');
    expect(notJson).toMatchObject({ ok: false });
    expect(!notJson.ok && notJson.words).toMatch(/^This is not a TUF root\.json: .*\(JSON_/);
    const duplicate = judgeTrustedRoot('{"signed":{},"signed":{},"signatures":[]}');
    expect(!duplicate.ok && duplicate.words).toContain('JSON_DUPLICATE_MEMBER');
  });

  it('refuses a root its own root keys did not sign (THRESHOLD_NOT_MET)', () => {
    const judged = judgeTrustedRoot(text(signedRoot(keys, 1, NOW, [newKey()])));
    expect(judged).toEqual({
      ok: false,
      words:
        'This root is not signed by 1 of its own 1 root keys, so it cannot start trust (THRESHOLD_NOT_MET).',
    });
  });

  it('is kept in a file written whole, read again at the next start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'trusted-root-'));
    try {
      const path = join(dir, 'trusted-root.json');
      const first = await fileTrustedRoot(path);
      expect(first.load()).toBeNull();
      const root = signedRoot(keys, 1, NOW);
      await first.save(root);
      expect(new Uint8Array(await readFile(path))).toEqual(root);
      expect((await fileTrustedRoot(path)).load()).toEqual(root);
      await first.forget();
      expect(first.load()).toBeNull();
      await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
      expect((await fileTrustedRoot(path)).load()).toBeNull();
      await first.forget();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is kept in memory by the web window', async () => {
    const store = memoryTrustedRoot();
    expect(store.load()).toBeNull();
    await store.save(new Uint8Array([1]));
    expect(store.load()).toEqual(new Uint8Array([1]));
    await store.forget();
    expect(store.load()).toBeNull();
    expect(trustedRootSummary(null)).toBe('');
    // A kept root that no longer reads is said, so the way out stays on the screen.
    expect(trustedRootSummary(new Uint8Array([1]))).toContain('can no longer be read');
  });
});
