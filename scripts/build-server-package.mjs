// Builds the `verified-updater-server` package (packages/server, docs/SERVER.md §As a package):
// esbuild compiles our TypeScript (server/src, src/protocol, src/shared and the updater's
// verifier) into ESM under packages/server/dist, one file per entry point plus shared chunks,
// with every npm package left as an import (they are the package's dependencies); tsc writes
// the .d.ts files beside them. The build refuses an import the package does not declare, so a
// missing dependency fails here and not in a QA team's project. The server's guides are copied
// into packages/server/docs, so the package README's links resolve inside the installed package.
// `npm pack` runs this itself (the package's `prepack`).
// Usage: node scripts/build-server-package.mjs [--no-types]   (or import { buildServerPackage })
import { spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const PACKAGE_DIR = join(root, 'packages', 'server');
const ENTRY_POINTS = ['index', 'bin', 'playwright', 'vitest'];
/** The guides the package carries (docs/SERVER.md §As a package), under its own docs/. */
export const PACKAGE_DOCS = ['SERVER.md', 'OAUTH.md', 'CHAIN.md', 'PROTOCOL.md'];

/** `fastify/lib/x` -> `fastify`, `@noble/ed25519` stays. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function isBuiltin(specifier) {
  return specifier.startsWith('node:') || builtinModules.includes(specifier);
}

/** Every bare import the compiled code makes must be a declared (peer) dependency. */
function undeclaredImports(metafile, manifest) {
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const missing = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const imported of output.imports) {
      if (!imported.external || isBuiltin(imported.path)) continue;
      const name = packageName(imported.path);
      if (!declared.has(name)) missing.add(name);
    }
  }
  return [...missing].sort();
}

/** Builds packages/server/dist (JavaScript, and .d.ts unless `types: false`). */
export async function buildServerPackage(options = {}) {
  const types = options.types ?? true;
  const dist = join(PACKAGE_DIR, 'dist');
  await rm(dist, { recursive: true, force: true });
  const manifest = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8'));
  const result = await build({
    entryPoints: Object.fromEntries(
      ENTRY_POINTS.map((name) => [name, join(PACKAGE_DIR, 'src', `${name}.ts`)]),
    ),
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: dist,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'error',
    legalComments: 'none',
    metafile: true,
    // The usage text names the bin, not `npm run server --` (server/src/cli/main.ts).
    define: {
      'process.env.VERIFIED_UPDATER_SERVER_PROGRAM': JSON.stringify('verified-updater-server'),
    },
  });
  const missing = undeclaredImports(result.metafile, manifest);
  if (missing.length > 0) {
    throw new Error(
      `packages/server/package.json does not declare ${missing.join(', ')}, which the compiled server imports`,
    );
  }
  await chmod(join(dist, 'bin.js'), 0o755);
  const docs = join(PACKAGE_DIR, 'docs');
  await rm(docs, { recursive: true, force: true });
  await mkdir(docs);
  for (const name of PACKAGE_DOCS) await copyFile(join(root, 'docs', name), join(docs, name));
  if (types) {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const run = spawnSync(process.execPath, [tsc, '-p', join(PACKAGE_DIR, 'tsconfig.build.json')], {
      cwd: root,
      encoding: 'utf8',
    });
    if (run.status !== 0) {
      throw new Error(`tsc (declarations) failed: ${run.stdout}${run.stderr}`);
    }
  }
  return { dir: PACKAGE_DIR, dist, name: manifest.name, version: manifest.version };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildServerPackage({ types: !process.argv.includes('--no-types') });
}
