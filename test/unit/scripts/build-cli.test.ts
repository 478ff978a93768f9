/**
 * The CLI's launcher (src/cli/launcher.ts, built by scripts/build-cli.mjs; docs/UPDATER.md §8
 * Many small artifacts, §11.2): it sizes libuv's thread pool before node starts it, which the ES
 * module bundle cannot do itself, and leaves a size the user chose alone; and it opens the
 * registry's connection for check and update before the bundle loads.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCli, CLI_THREADPOOL_SIZE, launcherOf } from '#scripts/build-cli.mjs';

const run = promisify(execFile);
let dir: string;
let bundle: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'build-cli-'));
  bundle = await buildCli({ outfile: join(dir, 'updater.mjs') });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `node launcher` with the bundle replaced by a probe of the pool size it started with. */
async function probe(env: NodeJS.ProcessEnv): Promise<{ size: string; threads: number }> {
  const probeDir = await mkdtemp(join(dir, 'probe-'));
  const launcher = launcherOf(join(probeDir, 'updater.mjs'));
  await writeFile(launcher, await readFile(launcherOf(bundle)));
  // 32 jobs for the pool, then the thread count: the pool starts all its threads at once.
  await writeFile(
    join(probeDir, 'updater.mjs'),
    `import { pbkdf2 } from 'node:crypto';
import { readFileSync } from 'node:fs';
for (let i = 0; i < 32; i++) pbkdf2('x', 'y', 1000, 32, 'sha256', () => {});
const threads = Number(/Threads:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
process.stdout.write(JSON.stringify({ size: process.env.UV_THREADPOOL_SIZE, threads }));
`,
  );
  const { stdout } = await run(process.execPath, [launcher], { env });
  return JSON.parse(stdout) as { size: string; threads: number };
}

describe('the CLI launcher', () => {
  it('sits beside the bundle and runs it', async () => {
    expect(launcherOf('/x/dist/cli/updater.mjs')).toBe('/x/dist/cli/updater.cjs');
    const { stdout } = await run(process.execPath, [launcherOf(bundle), '--help']);
    expect(stdout).toContain('usage: npm run updater');
  });

  it.runIf(process.platform === 'linux')(
    'starts the pool with its threads, unless the user sized it',
    async () => {
      const env = { ...process.env };
      delete env['UV_THREADPOOL_SIZE'];
      const sized = await probe(env);
      expect(sized.size).toBe(String(CLI_THREADPOOL_SIZE));
      const chosen = await probe({ ...env, UV_THREADPOOL_SIZE: '2' });
      expect(chosen.size).toBe('2');
      // The pool really has the threads: the same process with 14 more.
      expect(sized.threads - chosen.threads).toBe(CLI_THREADPOOL_SIZE - 2);
    },
  );

  it('opens the registry connection of check and update before the bundle loads', async () => {
    const accepted: Socket[] = [];
    const server = createServer((socket) => accepted.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    try {
      const probeDir = await mkdtemp(join(dir, 'early-'));
      const launcher = launcherOf(join(probeDir, 'updater.mjs'));
      await writeFile(launcher, await readFile(launcherOf(bundle)));
      // The bundle's first line: is the launcher's connection there, and to where?
      await writeFile(
        join(probeDir, 'updater.mjs'),
        `const early = globalThis[Symbol.for('verified-updater.early-connection')];
process.stdout.write(JSON.stringify(early === undefined ? null : { host: early.host, port: early.port }));
early?.adopt()?.destroy();
`,
      );
      const argv = [
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--dir',
        probeDir,
        '--pubkey',
        'ab',
      ];
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        http_proxy: '',
        https_proxy: '',
        all_proxy: '',
      };
      for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) delete env[name];
      const update = await run(process.execPath, [launcher, 'update', ...argv], { env });
      expect(JSON.parse(update.stdout)).toEqual({ host: '127.0.0.1', port });
      await vi.waitFor(() => expect(accepted).toHaveLength(1));
      const status = await run(process.execPath, [launcher, 'status', ...argv], { env });
      expect(JSON.parse(status.stdout)).toBeNull();
      expect(accepted).toHaveLength(1);
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('loads no worker_threads, child_process, vm, https, tls or zlib before a run needs them', async () => {
    // A no-op start pays for every built-in the bundle imports statically (lazy-builtin.ts).
    const report = join(dir, 'loaded.cjs');
    await writeFile(
      report,
      `process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(process.moduleLoadList)));`,
    );
    const { stderr } = await run(process.execPath, ['--require', report, bundle, '--help']);
    const loaded = JSON.parse(/LOADED (.*)$/s.exec(stderr)?.[1] ?? '[]') as string[];
    expect(loaded).toContain('NativeModule fs');
    for (const name of ['worker_threads', 'child_process', 'vm', 'https', 'tls', 'zlib']) {
      expect(loaded).not.toContain(`NativeModule ${name}`);
    }
  });
});
