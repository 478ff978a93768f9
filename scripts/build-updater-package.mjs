// Builds the `verified-updater` package (packages/updater, docs/UPDATER.md §CLI): the headless
// CLI as scripts/build-cli.mjs bundles it (updater.mjs and its launcher updater.cjs, the bin;
// undici.mjs for proxied runs) and the Node entry `createUpdater` (index.js), each one bundled
// file with no dependencies, plus the .d.ts files tsc writes beside them. The usage text names
// the bin instead of `npm run updater --`. `npm pack` runs this itself (the package's
// `prepack`).
// Usage: node scripts/build-updater-package.mjs [--no-types]   (or import { buildUpdaterPackage })
import { spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildCli, inputsFileOf, launcherOf } from './build-cli.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const UPDATER_PACKAGE_DIR = join(root, 'packages', 'updater');
/** The guides the package carries, under its own docs/. */
export const UPDATER_PACKAGE_DOCS = ['UPDATER.md', 'SECURITY.md'];
const BIN_NAME = 'verified-updater';

/** Builds packages/updater/dist (JavaScript, and .d.ts unless `types: false`). */
export async function buildUpdaterPackage(options = {}) {
  const types = options.types ?? true;
  const dist = join(UPDATER_PACKAGE_DIR, 'dist');
  await rm(dist, { recursive: true, force: true });
  const manifest = JSON.parse(await readFile(join(UPDATER_PACKAGE_DIR, 'package.json'), 'utf8'));
  const cli = await buildCli({ outfile: join(dist, 'updater.mjs') });
  // `serve` needs the window's page and the tray's resources from the repository: not shipped.
  await rm(join(dist, 'serve.mjs'), { force: true });
  await rm(inputsFileOf(cli), { force: true }); // repository paths, of no use in the package
  for (const file of [cli]) {
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text
        // `serve` is not shipped: its pointer goes from --help.
        .replace(/\n {7}npm run updater -- serve --help {3}\(the window in a browser\)/, '')
        .replaceAll('npm run updater -- ', `${BIN_NAME} `),
    );
  }
  await chmod(launcherOf(cli), 0o755);
  const launcher = await readFile(launcherOf(cli), 'utf8');
  await writeFile(launcherOf(cli), `#!/usr/bin/env node\n${launcher}`);
  await build({
    entryPoints: { index: join(UPDATER_PACKAGE_DIR, 'src', 'index.ts') },
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: dist,
    logLevel: 'error',
    legalComments: 'none',
    // CommonJS dependencies (semver) call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  const docs = join(UPDATER_PACKAGE_DIR, 'docs');
  await rm(docs, { recursive: true, force: true });
  await mkdir(docs);
  for (const name of UPDATER_PACKAGE_DOCS) {
    await copyFile(join(root, 'docs', name), join(docs, name));
  }
  if (types) {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const run = spawnSync(
      process.execPath,
      [tsc, '-p', join(UPDATER_PACKAGE_DIR, 'tsconfig.build.json')],
      { cwd: root, encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`tsc (declarations) failed: ${run.stdout}${run.stderr}`);
  }
  return { dir: UPDATER_PACKAGE_DIR, dist, name: manifest.name, version: manifest.version };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildUpdaterPackage({ types: !process.argv.includes('--no-types') });
}
