/**
 * The QA quick starts, run as written (README.md §QA quick start, packages/server/README.md
 * §QA quick start): every code block of those sections, in order, in a scratch project under
 * the system temp directory, outside the repository. Shell blocks run under `bash -e` (the
 * README's `../qa-project` is that scratch project), a block whose first line is `// PATH` is
 * written to PATH, a JSON block must equal the file `init` wrote, and a block that starts the
 * server must print its first line with the node key `init` made. The browser is the system
 * Chromium (CHROMIUM_PATH, which the README's Playwright config reads). The packages and the
 * test runners come from the npm registry or its cache, as a QA team gets them.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '#scripts/test-tools.mjs';
import { sectionBlocks, type CodeBlock } from '../helpers/readme-blocks.js';
import { spawnServer } from '#test/server-harness.js';

const root = resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);
const README_PROJECT = '../qa-project';

/** The environment without `npm test`'s own npm_* and vitest variables: a run of its own. */
function cleanEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => (!k.startsWith('npm_') || keep.has(k)) && !k.startsWith('VITEST') && k !== 'TEST',
    ),
  );
  return {
    ...env,
    NO_COLOR: '1',
    CHROMIUM_PATH: findChromium()?.path ?? '',
    // From the cache `npm ci` filled where it can; the registry for the rest.
    npm_config_prefer_offline: 'true',
  };
}

async function sh(script: string, cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await exec('bash', ['-e', '-c', script], {
      cwd,
      env: cleanEnv(),
      maxBuffer: 32 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${script}\nfailed in ${cwd}: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`,
    );
  }
}

const isServe = (block: CodeBlock): boolean =>
  /^npx verified-updater-server --port/m.test(block.text);

/** Starts the server as the block says and checks its first line against the node key. */
async function serve(block: CodeBlock, cwd: string): Promise<void> {
  const words = (block.text.split('#')[0] ?? '').trim().split(/\s+/);
  const [command = 'npx', ...args] = words;
  const key = JSON.parse(await readFile(join(cwd, 'keys', 'node-key.json'), 'utf8')) as {
    public_key_hex: string;
  };
  const server = await spawnServer(command, args, { cwd, env: cleanEnv(), timeoutMs: 60_000 });
  try {
    expect(server.first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.first.node_pubkey).toBe(key.public_key_hex);
  } finally {
    await server.stop('SIGTERM');
  }
}

/** Runs the blocks in order in `cwd` and returns the output of each shell block. */
async function runBlocks(blocks: readonly CodeBlock[], cwd: string): Promise<string[]> {
  const outputs: string[] = [];
  for (const block of blocks) {
    if (block.file !== undefined) {
      await mkdir(dirname(join(cwd, block.file)), { recursive: true });
      await writeFile(join(cwd, block.file), block.text);
    } else if (block.lang === 'json') {
      const written = JSON.parse(await readFile(join(cwd, 'qa-server.json'), 'utf8')) as unknown;
      expect(JSON.parse(block.text)).toEqual(written);
    } else if (block.lang === 'sh' && isServe(block)) {
      await serve(block, cwd);
    } else if (block.lang === 'sh') {
      outputs.push(await sh(block.text, cwd));
    } else {
      throw new Error(`a ${block.lang} block that is neither a file nor a command:\n${block.text}`);
    }
  }
  return outputs;
}

let base: string;
let project: string;
const SETUP_MS = 600_000;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'readme-qa-'));
  project = join(base, 'qa-project');
}, SETUP_MS);

afterAll(async () => {
  if (base !== undefined) await rm(base, { recursive: true, force: true });
});

describe('README.md §QA quick start, as written', () => {
  it('finds its blocks: the set-up, the server, the config, four files, the run', async () => {
    const blocks = sectionBlocks(
      await readFile(join(root, 'README.md'), 'utf8'),
      '### QA quick start',
    );
    expect(blocks.map((b) => b.file ?? b.lang)).toEqual([
      'sh',
      'sh',
      'json',
      'playwright.config.ts',
      'e2e/login.spec.ts',
      'tests/manifest.test.ts',
      'tests/update.test.ts',
      'sh',
    ]);
  });

  it(
    'packs both packages, installs them outside the repository and passes its tests',
    async () => {
      const markdown = await readFile(join(root, 'README.md'), 'utf8');
      const [setup, ...rest] = sectionBlocks(markdown, '### QA quick start');
      if (setup === undefined) throw new Error('no set-up block');
      expect(setup.text).toContain(README_PROJECT);
      // The set-up runs in the clone, as the README says; its project is the scratch one.
      const installed = await sh(setup.text.replaceAll(README_PROJECT, project), root);
      // Node versions, truthfully (docs/SERVER.md §As a package): on the Node that runs these
      // tests (CI: Node 20, the packages' lowest), nothing installed declares a newer one.
      expect(installed).not.toMatch(/EBADENGINE/);
      expect(project.startsWith(root)).toBe(false);
      const outputs = await runBlocks(rest, project);
      const run = outputs.at(-1) ?? '';
      expect(run).toMatch(/2 passed/); // Playwright
      expect(run).toMatch(/Tests\s+2 passed \(2\)/); // vitest
    },
    SETUP_MS,
  );
});

describe('the installed bins', () => {
  it('name themselves in their usage, not `npm run`', async () => {
    const updater = await sh('npx --no-install verified-updater --help', project);
    expect(updater).toMatch(/^usage: verified-updater <check\|update/m);
    const server = await sh('npx --no-install verified-updater-server --help', project);
    expect(server).toContain('verified-updater-server [options]');
    expect(server).toContain('verified-updater-server init DIR');
    expect(`${updater}${server}`).not.toContain('npm run');
    expect(updater).not.toContain(' serve'); // not in the package: it needs the repository
  }, 60_000);
});

describe('packages/server/README.md §QA quick start, as written', () => {
  it(
    'installs the tarball into a fresh project and passes its test',
    async () => {
      const pkgProject = join(base, 'pkg-project');
      await mkdir(pkgProject);
      const tarballs = (await readdir(project)).filter((f) =>
        f.startsWith('verified-updater-server-'),
      );
      expect(tarballs).toHaveLength(1);
      await copyFile(join(project, tarballs[0] ?? ''), join(pkgProject, tarballs[0] ?? ''));
      await sh('npm init -y > /dev/null', pkgProject); // a QA project has its package.json
      const markdown = await readFile(join(root, 'packages/server/README.md'), 'utf8');
      const blocks = sectionBlocks(markdown, '## QA quick start');
      expect(blocks.map((b) => b.file ?? b.lang)).toEqual(['sh', 'sh', 'qa/server.test.mjs', 'sh']);
      const outputs = await runBlocks(blocks, pkgProject);
      expect(outputs.at(-1)).toMatch(/^# pass 1$/m);
    },
    SETUP_MS,
  );
});
