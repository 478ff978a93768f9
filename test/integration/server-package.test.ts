/**
 * The companion server as a QA team gets it (docs/SERVER.md §As a package): the package is
 * built, packed with `npm pack`, and the tarball installed into a scratch project outside the
 * repository (from the npm cache where it can, `--prefer-offline`). There, with nothing of this
 * repository in reach, a QA-style test runs under plain `node --test` (start, mint, publish,
 * fetch the signed manifest and verify it with the exported verifier, an OAuth code flow), a
 * TypeScript consumer type-checks against the installed declarations, and the bin, started
 * directly or through npx, stops (port closed, temporary data directory gone) when the process
 * the harness started is killed.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_DIR } from '#scripts/build-server-package.mjs';
import { findChromium } from '#scripts/test-tools.mjs';
import { spawnServer, waitStopped } from '#test/server-harness.js';

const root = resolve(import.meta.dirname, '../..');
const here = join(import.meta.dirname, 'server-package');
const exec = promisify(execFile);
const SETUP_MS = 240_000;

/**
 * The environment without what `npm test` exports to its children (npm_package_*, ...) and
 * without this vitest run's own variables, so the scratch project's vitest is a run of its own.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => (!k.startsWith('npm_') || keep.has(k)) && !k.startsWith('VITEST') && k !== 'TEST',
    ),
  );
}

/** The version the repository installed, so the scratch project installs it from the cache. */
function installed(name: string): string {
  const pkg = JSON.parse(
    readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'),
  ) as { version: string };
  return `${name}@${pkg.version}`;
}

async function run(command: string, args: readonly string[], cwd: string) {
  try {
    return await exec(command, args, { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`,
    );
  }
}

let scratch: string;
let packed: { filename: string; files: { path: string }[] };

beforeAll(async () => {
  // No build first: `npm pack` runs the package's prepack, which builds it.
  scratch = await mkdtemp(join(tmpdir(), 'qa-scratch-'));
  const pack = await run('npm', ['pack', '--json', '--pack-destination', scratch], PACKAGE_DIR);
  [packed] = JSON.parse(pack.stdout) as [typeof packed];
  const manifest = { name: 'qa-scratch', private: true, type: 'module' };
  await writeFile(join(scratch, 'package.json'), JSON.stringify(manifest));
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `./${packed.filename}`,
      // The optional peers of the /playwright and /vitest entries, as a QA project has them.
      installed('@playwright/test'),
      installed('vitest'),
    ],
    scratch,
  );
}, SETUP_MS);

afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

describe('the packed verified-updater-server, installed in a scratch project', () => {
  it('is installed outside the repository', () => {
    expect(scratch.startsWith(root)).toBe(false);
  });

  it('ships compiled JavaScript, declarations and the bin, and no TypeScript source or key', () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/bin.js',
        'dist/types/packages/server/src/index.d.ts',
        'dist/playwright.js',
        'dist/vitest.js',
        'dist/types/packages/server/src/playwright.d.ts',
        'dist/types/packages/server/src/vitest.d.ts',
        'docs/SERVER.md',
        'docs/OAUTH.md',
      ]),
    );
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => /(^|\/)node-key\.json$|\.key$/.test(f))).toEqual([]);
  });

  it('passes a QA-style test run by plain node (no tsx, nothing of the repository)', async () => {
    await copyFile(join(here, 'scratch-qa.mjs'), join(scratch, 'qa.test.mjs'));
    const { stdout } = await run(process.execPath, ['--test', 'qa.test.mjs'], scratch);
    expect(stdout).toMatch(/^# pass 2$/m);
    expect(stdout).toMatch(/^# fail 0$/m);
  }, 60_000);

  it('verified-updater-server/playwright: per-test and per-worker servers, the login page in Chromium', async () => {
    await copyFile(join(here, 'scratch-fixtures.spec.mjs'), join(scratch, 'fixtures.spec.mjs'));
    await copyFile(join(here, 'scratch-login.spec.mjs'), join(scratch, 'login.spec.mjs'));
    await copyFile(
      join(here, 'scratch-playwright.config.mjs'),
      join(scratch, 'playwright.config.mjs'),
    );
    const chromium = findChromium();
    const { stdout } = await exec(
      process.execPath,
      [join(scratch, 'node_modules', '@playwright', 'test', 'cli.js'), 'test'],
      {
        cwd: scratch,
        env: { ...cleanEnv(), CHROMIUM_PATH: chromium?.path ?? '' },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`playwright test failed: ${error.message}\n${error.stdout ?? ''}`);
    });
    expect(stdout).toMatch(/5 passed/);
  }, 120_000);

  it('verified-updater-server/vitest: useServer per file and per test, and the server fixture', async () => {
    await copyFile(join(here, 'scratch-vitest.test.mjs'), join(scratch, 'qa.vitest.test.mjs'));
    const { stdout } = await exec(
      process.execPath,
      [join(scratch, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'qa.vitest.test.mjs'],
      { cwd: scratch, env: { ...cleanEnv(), NO_COLOR: '1' }, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; message: string }) => {
      throw new Error(`vitest run failed: ${error.message}\n${error.stdout ?? ''}`);
    });
    expect(stdout).toMatch(/Tests\s+5 passed \(5\)/);
  }, 120_000);

  it('type-checks a strict TypeScript consumer against the installed declarations', async () => {
    await copyFile(join(here, 'consumer.ts'), join(scratch, 'consumer.ts'));
    const tsconfig = {
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: true,
        // A QA project has its own @types/node; this one borrows the repository's.
        typeRoots: [join(root, 'node_modules', '@types')],
        types: ['node'],
      },
      files: ['consumer.ts'],
    };
    await writeFile(join(scratch, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], scratch);
  }, 60_000);

  const started = (command: string, args: readonly string[]) =>
    spawnServer(command, [...args, '--port', '0', '--dev', '--simulate', 'off'], {
      cwd: scratch,
      env: cleanEnv(),
      timeoutMs: 60_000,
    });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'the bin, run by node directly: %s closes the port and removes the temporary data dir',
    async (signal) => {
      const bin = join(scratch, 'node_modules', '.bin', 'verified-updater-server');
      const server = await started(bin, []);
      try {
        expect(server.first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect((await fetch(`${server.first.url}/api/dev/reset`, { method: 'POST' })).status).toBe(
          200,
        );
        expect(await server.stop(signal)).toBe(0);
        expect(await waitStopped(server.first.url, String(server.first['data_dir']))).toEqual({
          portClosed: true,
          dataDirGone: true,
        });
      } finally {
        await server.stop('SIGKILL');
      }
    },
    90_000,
  );

  it('`npx verified-updater-server --port 0 --dev`: killing the npx process stops the server', async () => {
    const server = await started('npx', ['--no-install', 'verified-updater-server']);
    try {
      expect(server.first.node_pubkey).toMatch(/^[0-9a-f]{64}$/);
      await server.stop('SIGTERM');
      expect(await waitStopped(server.first.url, String(server.first['data_dir']))).toEqual({
        portClosed: true,
        dataDirGone: true,
      });
    } finally {
      await server.stop('SIGKILL');
    }
  }, 90_000);
});
