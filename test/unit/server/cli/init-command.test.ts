/**
 * `verified-updater-server init DIR` (docs/SERVER.md §Start a QA project): the config skeleton,
 * a node key only its owner may read, a sample release, and nothing overwritten.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INIT_CONFIG, parseInitCommand, runInit } from '#server/cli/init-command.js';
import { parseArgs } from '#server/cli/main-args.js';
import { validateConfig } from '#server/config/server-config.js';
import { startServer } from '#server/compose/start-server.js';
import { publicKeyOf, pubkeyToHex } from '#protocol';
import { serverCliArgv } from '#test/built-clis.js';

const root = resolve(import.meta.dirname, '../../../..');
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'init-command-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('parsing `init`', () => {
  it('takes exactly one DIR', () => {
    expect(parseArgs(['init', 'qa'])).toEqual({ kind: 'init', dir: 'qa' });
    expect(() => parseInitCommand([])).toThrow('init needs a DIR');
    expect(() => parseInitCommand(['a', 'b'])).toThrow('unexpected argument "b"');
    expect(() => parseInitCommand(['a', '--force'])).toThrow('unknown option --force');
  });
});

describe('runInit', () => {
  it('writes the config skeleton, which the config checker accepts', async () => {
    const result = await runInit({ kind: 'init', dir });
    const text = await readFile(join(dir, 'qa-server.json'), 'utf8');
    expect(JSON.parse(text)).toEqual(INIT_CONFIG);
    expect(() => validateConfig(JSON.parse(text), 'qa-server.json', dir)).not.toThrow();
    expect(result.config).toBe(join(dir, 'qa-server.json'));
  });

  it('writes a node key readable by its owner only, in a directory that ignores it for git', async () => {
    const result = await runInit({ kind: 'init', dir });
    const keyFile = join(dir, 'keys', 'node-key.json');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'keys'))).mode & 0o077).toBe(0);
    expect(await readFile(join(dir, 'keys', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    const key = JSON.parse(await readFile(keyFile, 'utf8')) as Record<string, string>;
    expect(key['secret_key_hex']).toMatch(/^[0-9a-f]{64}$/);
    const pub = pubkeyToHex(
      publicKeyOf(new Uint8Array(Buffer.from(key['secret_key_hex'] ?? '', 'hex'))),
    );
    expect(key['public_key_hex']).toBe(pub);
    expect(result.node_pubkey).toBe(pub);
  });

  it('writes a new key each time it starts a directory', async () => {
    const other = await mkdtemp(join(tmpdir(), 'init-command-'));
    try {
      const [a, b] = [
        await runInit({ kind: 'init', dir }),
        await runInit({ kind: 'init', dir: other }),
      ];
      expect(a.node_pubkey).not.toBe(b.node_pubkey);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('starts a server: its node key signs, its machine key gets the sample release', async () => {
    const { node_pubkey } = await runInit({ kind: 'init', dir });
    const server = await startServer({
      config: join(dir, 'qa-server.json'),
      dev: true,
      simulate: false,
    });
    try {
      expect(server.nodePubkey).toBe(node_pubkey);
      const res = await fetch(`${server.url}/api/updates/manifest`, {
        headers: { authorization: `Bearer ${INIT_CONFIG.machines[0].machine_key}` },
      });
      expect(res.status).toBe(200);
      expect(server.updates.currentRelease()?.manifest.registry_version).toBe('1.0.0');
    } finally {
      await server.close();
    }
  });

  it('writes a sample release folder', async () => {
    await runInit({ kind: 'init', dir });
    const hello = await readFile(join(dir, 'fixtures', 'app-1.0.0', 'hello.txt'), 'utf8');
    expect(hello).toContain('1.0.0');
  });

  it.each(['qa-server.json', 'keys/node-key.json', 'fixtures/app-1.0.0'])(
    'refuses (EEXIST) when %s is there, and writes nothing',
    async (existing) => {
      const path = join(dir, existing);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, 'mine');
      await expect(runInit({ kind: 'init', dir })).rejects.toMatchObject({ code: 'EEXIST' });
      expect(await readFile(path, 'utf8')).toBe('mine');
      const others = ['qa-server.json', 'keys/node-key.json'].filter((p) => p !== existing);
      for (const other of others) {
        await expect(stat(join(dir, other))).rejects.toMatchObject({ code: 'ENOENT' });
      }
    },
  );
});

describe('the command line', () => {
  it('`npm run server -- init DIR` prints one JSON line, and a second run refuses (exit 1, EEXIST)', async () => {
    const run = promisify(execFile);
    const tsx = serverCliArgv();
    const { stdout } = await run(process.execPath, [...tsx, 'init', dir], { cwd: root });
    const line = JSON.parse(stdout) as Record<string, unknown>;
    expect(line).toMatchObject({ ok: true, node_key: join(dir, 'keys', 'node-key.json') });
    const again = await run(process.execPath, [...tsx, 'init', dir], { cwd: root }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(again).toMatchObject({ code: 1 });
    expect(JSON.parse((again as { stderr: string }).stderr)).toMatchObject({ code: 'EEXIST' });
  }, 60_000);
});
