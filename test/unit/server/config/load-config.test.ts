import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, MAX_CONFIG_BYTES } from '#server/config/load-config.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'load-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the config file (docs/SERVER.md §Config file)', () => {
  it('refuses a file over 1 MiB before reading it, saying so', async () => {
    const file = join(dir, 'big.json');
    await writeFile(file, `{"x": "${'a'.repeat(MAX_CONFIG_BYTES)}"}`);
    await expect(loadConfig(file)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('larger than 1048576 bytes (1 MiB)') as unknown,
    });
  });

  it('accepts a UTF-8 byte order mark', async () => {
    const file = join(dir, 'bom.json');
    await writeFile(file, '\uFEFF{}');
    await expect(loadConfig(file)).resolves.toMatchObject({ config: {}, source: file });
  });

  it('names the reason for a missing file and for a file that is not JSON', async () => {
    await expect(loadConfig(join(dir, 'none.json'))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('(ENOENT: no such file)') as unknown,
    });
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"a":');
    await expect(loadConfig(bad)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/bad\.json: not JSON \(/) as unknown,
    });
  });
});
