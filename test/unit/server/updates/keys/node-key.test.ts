import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadNodeKey, NodeKeyError } from '#server/updates/keys/node-key.js';
import { createRandom } from '#server/platform/random.js';
import { publicKeyOf } from '#protocol/ed25519.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'node-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadNodeKey', () => {
  it('generates node-key.json with mode 0600 on first start and loads the same key after', async () => {
    const first = await loadNodeKey(dir, undefined, createRandom(undefined));
    const file = join(dir, 'node-key.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await loadNodeKey(dir, undefined, createRandom(undefined));
    expect(again.publicKeyHex).toBe(first.publicKeyHex);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      public_key_hex: first.publicKeyHex,
    });
  });

  it('derives the same key from the same --seed', async () => {
    const a = await loadNodeKey(join(dir, 'a'), join(dir, 'a.json'), createRandom(7));
    const b = await loadNodeKey(join(dir, 'b'), join(dir, 'b.json'), createRandom(7));
    expect(a.publicKeyHex).toBe(b.publicKeyHex);
  });

  it('accepts a --node-key file holding only the 64-hex secret seed', async () => {
    const seed = 'ab'.repeat(32);
    await writeFile(join(dir, 'k.hex'), `${seed}\n`);
    const key = await loadNodeKey(dir, join(dir, 'k.hex'), createRandom(undefined));
    expect(key.publicKeyHex).toBe(
      Buffer.from(publicKeyOf(new Uint8Array(Buffer.from(seed, 'hex')))).toString('hex'),
    );
  });

  it('refuses a corrupt key file instead of generating a new key (fail closed)', async () => {
    await writeFile(join(dir, 'node-key.json'), '{"secret_key_hex": "zz"}');
    await expect(loadNodeKey(dir, undefined, createRandom(undefined))).rejects.toBeInstanceOf(
      NodeKeyError,
    );
    expect(await readFile(join(dir, 'node-key.json'), 'utf8')).toBe('{"secret_key_hex": "zz"}');
  });
});
