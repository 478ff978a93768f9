import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settleTrustedRoot } from '#node/tuf/index.js';
import { newKey } from '#test/trust-kit.js';
import { roleKeys, signedRoot } from '#test/tuf-metadata-kit.js';

const NOW = Date.UTC(2026, 10, 1);
const keys = roleKeys();
let meta = '';

beforeEach(async () => {
  meta = join(await mkdtemp(join(tmpdir(), 'trusted-root-')), '.updater');
  await mkdir(meta);
});
afterEach(() => rm(join(meta, '..'), { recursive: true, force: true }));

const stored = (role: string) => readFile(join(meta, 'tuf', `${role}.json`));

describe('settleTrustedRoot', () => {
  it('stores the given root on the first run, and uses the stored one later', async () => {
    const one = signedRoot(keys, 1, NOW);
    expect((await settleTrustedRoot(meta, one)).outcome).toBe('installed');
    expect(new Uint8Array(await stored('root'))).toEqual(one);
    expect((await settleTrustedRoot(meta, undefined)).outcome).toBe('stored');
  });

  it('ignores a given root that is not newer than the stored one', async () => {
    const two = signedRoot(keys, 2, NOW);
    await settleTrustedRoot(meta, two);
    expect((await settleTrustedRoot(meta, signedRoot(keys, 1, NOW))).outcome).toBe('ignored');
    expect(new Uint8Array(await stored('root'))).toEqual(two);
  });

  it('replaces the stored root with a newer given one and drops the rest', async () => {
    await settleTrustedRoot(meta, signedRoot(keys, 1, NOW));
    await writeFile(join(meta, 'tuf', 'timestamp.json'), '{}');
    const three = signedRoot(keys, 3, NOW);
    expect((await settleTrustedRoot(meta, three)).outcome).toBe('replaced');
    expect(new Uint8Array(await stored('root'))).toEqual(three);
    await expect(stored('timestamp')).rejects.toThrow();
  });

  it('refuses a root not signed by its own threshold (TRUSTED_ROOT_INVALID), storing nothing', async () => {
    const forged = signedRoot(keys, 1, NOW, [newKey()]);
    await expect(settleTrustedRoot(meta, forged)).rejects.toMatchObject({
      code: 'TRUSTED_ROOT_INVALID',
    });
    await expect(
      settleTrustedRoot(meta, new TextEncoder().encode('{"signed":')),
    ).rejects.toMatchObject({ code: 'TRUSTED_ROOT_INVALID' });
    expect((await settleTrustedRoot(meta, undefined)).outcome).toBe('none');
  });
});
