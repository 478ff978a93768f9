import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnvelope } from '#protocol/envelope.js';
import { parseManifest } from '#protocol/manifest.js';
import { runCli, spawnCli, spawnServer, waitStopped } from '#test/server-harness.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'server-cli-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function mint(url: string): Promise<string> {
  const res = await fetch(`${url}/api/demo-key/mint`, { method: 'POST' });
  return ((await res.json()) as { machine_key: string }).machine_key;
}

describe('npm run server (CLI)', () => {
  it('prints the URL and node_pubkey first, logs JSON with the key redacted, and on SIGTERM exits 0 removing its temporary data dir', async () => {
    const cli = await spawnCli(['--port', '0', '--simulate', 'off']);
    try {
      expect(cli.first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(cli.first.node_pubkey).toMatch(/^[0-9a-f]{64}$/);
      const dataDir = String(cli.first['data_dir']);
      expect(existsSync(dataDir)).toBe(true);
      expect((await fetch(`${cli.first.url}/healthz`)).status).toBe(200);
      const key = await mint(cli.first.url);
      const res = await fetch(`${cli.first.url}/api/updates/manifest`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      const dev = await fetch(`${cli.first.url}/api/dev/reset`, { method: 'POST' });
      expect(dev.status).toBe(404);
      expect(await cli.stop('SIGTERM')).toBe(0);
      expect(existsSync(dataDir)).toBe(false);
      expect(cli.lines.length).toBeGreaterThan(0);
      for (const line of cli.lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
      expect(cli.lines.join('\n')).not.toContain(key);
    } finally {
      await cli.stop('SIGKILL');
    }
  });

  it('on SIGHUP (its terminal closed) exits 0, its port closed and its temporary data dir removed', async () => {
    const cli = await spawnCli(['--port', '0', '--simulate', 'off']);
    try {
      const dataDir = String(cli.first['data_dir']);
      expect(existsSync(dataDir)).toBe(true);
      expect(await cli.stop('SIGHUP')).toBe(0);
      expect(await waitStopped(cli.first.url, dataDir)).toEqual({
        portClosed: true,
        dataDirGone: true,
      });
    } finally {
      await cli.stop('SIGKILL');
    }
  });

  it('keeps serving when its stdout reader leaves after the first line (`| head -1`), then stops cleanly', async () => {
    const cli = await spawnCli(['--port', '0', '--simulate', 'off']);
    try {
      const dataDir = String(cli.first['data_dir']);
      cli.child.stdout?.destroy();
      // Each request logs a line at info: the first write after the reader left fails (EPIPE).
      for (let i = 0; i < 5; i++) {
        expect((await fetch(`${cli.first.url}/healthz`)).status).toBe(200);
      }
      const key = await mint(cli.first.url);
      const res = await fetch(`${cli.first.url}/api/updates/manifest`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(cli.child.exitCode).toBeNull();
      expect(await cli.stop('SIGTERM')).toBe(0);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await cli.stop('SIGKILL');
    }
  });

  it('keeps a given --data-dir, writes the node key with mode 0600 and mounts the dev API with --dev', async () => {
    const dataDir = join(work, 'kept');
    const cli = await spawnCli([
      '--port',
      '0',
      '--dev',
      '--data-dir',
      dataDir,
      '--simulate',
      'off',
    ]);
    try {
      const res = await fetch(`${cli.first.url}/api/dev/reset`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect((await stat(join(dataDir, 'node-key.json'))).mode & 0o777).toBe(0o600);
      expect(await cli.stop('SIGINT')).toBe(0);
      expect(existsSync(join(dataDir, 'node-key.json'))).toBe(true);
    } finally {
      await cli.stop('SIGKILL');
    }
  });

  it('--config FILE: the configured node key and machine key are in effect; a bad field exits 1 naming its path', async () => {
    const seed = '22'.repeat(32);
    const key = `mk_${'C'.repeat(43)}`;
    const file = join(work, 'qa-server.json');
    await writeFile(
      file,
      JSON.stringify({ node_key: { secret_key_hex: seed }, machines: [{ machine_key: key }] }),
    );
    const cli = await spawnCli(['--port', '0', '--config', file, '--simulate', 'off']);
    try {
      const res = await fetch(`${cli.first.url}/api/updates/manifest`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      const again = await spawnCli(['--port', '0', '--config', file, '--simulate', 'off']);
      try {
        expect(again.first.node_pubkey).toBe(cli.first.node_pubkey); // the same every run
      } finally {
        await again.stop('SIGKILL');
      }
    } finally {
      await cli.stop('SIGKILL');
    }
    const bad = join(work, 'bad-config.json');
    await writeFile(
      bad,
      JSON.stringify({ machines: [{ machine_key: key, subscription: 'paid' }] }),
    );
    const out = await runCli(['--port', '0', '--config', bad]);
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stderr)).toMatchObject({
      ok: false,
      code: 'CONFIG_INVALID',
      error: `${bad}: $.machines[0].subscription: must be "active" or "inactive"`,
    });
  }, 90_000);

  it('refuses an unknown flag with exit code 2 and a usage message', async () => {
    const out = await runCli(['--port', '0', '--colour']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('unknown option --colour');
    expect(out.stderr).toContain('Usage:');
  });

  it('refuses to start on an unusable node key: exit 1 and one JSON line with NODE_KEY_INVALID', async () => {
    const keyFile = join(work, 'bad-node-key.json');
    await writeFile(keyFile, 'not a key');
    const out = await runCli(['--port', '0', '--node-key', keyFile, '--simulate', 'off']);
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stderr)).toMatchObject({ ok: false, code: 'NODE_KEY_INVALID' });
    expect(out.stderr).not.toContain('not a key');
  });

  it('refuses a --data-dir that names a file (or a path below one): exit 1, CONFIG_INVALID', async () => {
    const file = join(work, 'data-dir-file');
    await writeFile(file, 'a file, not a directory');
    for (const dataDir of [file, join(file, 'below')]) {
      const out = await runCli(['--port', '0', '--data-dir', dataDir, '--simulate', 'off']);
      expect(out.code).toBe(1);
      expect(JSON.parse(out.stderr)).toMatchObject({
        ok: false,
        code: 'CONFIG_INVALID',
        error: `the data directory ${dataDir} is not a directory`,
      });
    }
  });

  it.each([
    ['--config', 'CONFIG_INVALID'],
    ['--node-key', 'NODE_KEY_INVALID'],
    ['--clients-file', 'CLIENT_REGISTRATION_INVALID'],
  ])(
    'refuses a FIFO given as %s at once (exit 1, %s) instead of hanging deaf to SIGTERM',
    async (flag, code) => {
      const fifo = join(work, `fifo${flag}`);
      execFileSync('mkfifo', [fifo]);
      const out = await runCli(['--port', '0', '--simulate', 'off', flag, fifo], 15_000);
      expect(out.code).toBe(1);
      expect(JSON.parse(out.stderr)).toMatchObject({ ok: false, code });
    },
    30_000,
  );

  it('publish refuses a data dir without keys unless --init: NODE_KEY_MISSING, nothing written', async () => {
    const folder = join(work, 'release-init');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'app.txt'), 'app');
    const fresh = join(work, 'fresh');
    const refused = await runCli(['publish', '--data-dir', fresh, '--version', '1.0.0', folder]);
    expect(refused.code).toBe(1);
    const line = JSON.parse(refused.stderr) as { code: string; error: string };
    expect(line.code).toBe('NODE_KEY_MISSING');
    expect(line.error).toContain('--init');
    expect(line.error).toContain('UNKNOWN_KEY');
    expect(existsSync(fresh)).toBe(false);
    // The real key given with --node-key is not a new one: no --init needed.
    const keyDir = join(work, 'with-key');
    const keyed = await runCli([
      'publish',
      '--data-dir',
      keyDir,
      '--init',
      '--version',
      '1.0.0',
      folder,
    ]);
    expect(keyed.code).toBe(0);
    const pinned = (JSON.parse(keyed.stdout) as { node_pubkey: string }).node_pubkey;
    const moved = join(work, 'moved');
    const again = await runCli([
      'publish',
      '--data-dir',
      moved,
      '--node-key',
      join(keyDir, 'node-key.json'),
      '--version',
      '1.0.0',
      folder,
    ]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ node_pubkey: pinned });
  }, 90_000);

  it('publishes a folder into a data dir that the server then serves, and refuses to go back', async () => {
    const dataDir = join(work, 'published');
    const folder = join(work, 'release');
    await mkdir(join(folder, 'lib'), { recursive: true });
    await writeFile(join(folder, 'app.txt'), 'app');
    await writeFile(join(folder, 'lib', 'core.bin'), Buffer.alloc(4096, 1));
    const first = await runCli([
      'publish',
      '--data-dir',
      dataDir,
      '--init',
      '--version',
      '1.2.0',
      folder,
    ]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      ok: true,
      registry_version: '1.2.0',
      artifacts: 2,
    });

    const again = await runCli(['publish', '--data-dir', dataDir, '--version', '1.2.0', folder]);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ ok: false, code: 'VERSION_NOT_INCREASING' });

    await writeFile(join(folder, 'bad\\name'), 'x');
    const unsafe = await runCli(['publish', '--data-dir', dataDir, '--version', '1.3.0', folder]);
    expect(unsafe.code).toBe(1);
    expect(JSON.parse(unsafe.stderr)).toMatchObject({ ok: false, code: 'UNSAFE_NAME' });

    const cli = await spawnCli(['--port', '0', '--data-dir', dataDir, '--simulate', 'off']);
    try {
      const key = await mint(cli.first.url);
      const res = await fetch(`${cli.first.url}/api/updates/manifest`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const manifest = parseManifest(
        parseEnvelope(new Uint8Array(await res.arrayBuffer())).payload,
      );
      expect(manifest.registry_version).toBe('1.2.0');
      expect(manifest.artifacts.map((a) => a.name)).toEqual(['app.txt', 'lib/core.bin']);
    } finally {
      await cli.stop('SIGTERM');
    }
  }, 90_000);
});

describe('npm run server under a harness: the process it starts is the one it stops', () => {
  const npmServer = () =>
    spawnServer('npm', ['run', '-s', 'server', '--', '--port', '0', '--simulate', 'off'], {
      timeoutMs: 60_000,
    });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'the JSON is the first stdout line, and %s to the npm process closes the port and removes the temporary data dir',
    async (signal) => {
      const cli = await npmServer();
      try {
        expect(cli.first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const dataDir = String(cli.first['data_dir']);
        expect(existsSync(dataDir)).toBe(true);
        await cli.stop(signal);
        expect(await waitStopped(cli.first.url, dataDir)).toEqual({
          portClosed: true,
          dataDirGone: true,
        });
      } finally {
        await cli.stop('SIGKILL');
      }
    },
    90_000,
  );

  it('SIGKILL to the npm process still stops the server: it notices npm is gone', async () => {
    const cli = await npmServer();
    try {
      const dataDir = String(cli.first['data_dir']);
      await cli.stop('SIGKILL');
      expect(await waitStopped(cli.first.url, dataDir)).toEqual({
        portClosed: true,
        dataDirGone: true,
      });
    } finally {
      await cli.stop('SIGKILL');
    }
  }, 90_000);
});
