/**
 * `npm run updater` rebuilds the CLI only when it is stale (scripts/build-cli.mjs --if-stale):
 * a current bundle is run as it is, a newer input or a missing output rebuilds it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, inputsFileOf, isStale } from '#scripts/build-cli.mjs';

const root = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);
let dir: string;
let bundle: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'build-cli-stale-'));
  bundle = await buildCli({ outfile: join(dir, 'updater.mjs') });
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('build-cli --if-stale', () => {
  it('records the inputs esbuild read, the CLI entry among them', async () => {
    const recorded = JSON.parse(await readFile(inputsFileOf(bundle), 'utf8')) as {
      inputs: string[];
    };
    expect(recorded.inputs).toContain('src/cli/main.ts');
  });

  it('is current right after a build, and the script leaves the bundle alone', async () => {
    expect(await isStale(bundle)).toBe(false);
    const before = (await stat(bundle)).mtimeMs;
    await run(process.execPath, ['scripts/build-cli.mjs', '--out', bundle, '--if-stale'], {
      cwd: root,
    });
    expect((await stat(bundle)).mtimeMs).toBe(before);
  });

  it('is stale when an input is newer than the bundle, and the script rebuilds it', async () => {
    const file = join(inputsFileOf(bundle));
    const recorded = JSON.parse(await readFile(file, 'utf8')) as { inputs: string[] };
    const input = join(dir, 'extra-input.ts');
    await writeFile(input, 'export {};\n');
    await writeFile(
      file,
      JSON.stringify({ ...recorded, inputs: [...recorded.inputs, relative(root, input)] }),
    );
    const future = new Date(Date.now() + 60_000);
    await utimes(input, future, future);
    expect(await isStale(bundle)).toBe(true);
    const before = (await stat(bundle)).mtimeMs;
    await run(process.execPath, ['scripts/build-cli.mjs', '--out', bundle, '--if-stale'], {
      cwd: root,
    });
    expect((await stat(bundle)).mtimeMs).toBeGreaterThan(before);
    expect(await isStale(bundle)).toBe(false);
  }, 60_000);

  it('is stale when an output is gone or nothing was recorded', async () => {
    await rm(join(dir, 'serve.mjs'));
    expect(await isStale(bundle)).toBe(true);
    expect(await isStale(join(dir, 'elsewhere', 'updater.mjs'))).toBe(true);
  });
});
