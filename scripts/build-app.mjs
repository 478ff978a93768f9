// Bundles the desktop app with esbuild into dist/app (docs/DESKTOP.md §Layout):
//   main/index.mjs     ESM, node platform; electron and node_modules stay external (electron-builder
//                      packs the production dependencies next to it)
//   preload/index.cjs  CommonJS: sandboxed preloads cannot be ESM
//   renderer/          browser IIFE + index.html + styles.css (strict CSP: no inline code)
//   web/web.js         the web window's bridge (browser IIFE, src/preload/web.ts), loaded
//                      before renderer.js by `updater serve` (src/web/web-window-server.ts)
// Usage: node scripts/build-app.mjs [--out DIR]   (or import { buildApp } from it)
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds main, preload and renderer into outDir (default dist/app); returns the paths. */
export async function buildApp(options = {}) {
  const outDir = resolve(options.outDir ?? join(root, 'dist', 'app'));
  const only = options.only ?? ['main', 'preload', 'renderer', 'web'];
  await mkdir(outDir, { recursive: true });
  const common = {
    bundle: true,
    sourcemap: true,
    logLevel: 'warning',
    absWorkingDir: root,
    legalComments: 'none',
  };
  const jobs = [];
  if (only.includes('main')) {
    jobs.push(
      build({
        ...common,
        entryPoints: [join(root, 'src/main/index.ts')],
        outfile: join(outDir, 'main/index.mjs'),
        platform: 'node',
        format: 'esm',
        target: 'node22',
        packages: 'external',
        external: ['electron'],
      }),
    );
  }
  if (only.includes('preload')) {
    jobs.push(
      build({
        ...common,
        entryPoints: [join(root, 'src/preload/index.ts')],
        outfile: join(outDir, 'preload/index.cjs'),
        platform: 'node',
        format: 'cjs',
        target: 'node22',
        external: ['electron'],
      }),
    );
  }
  if (only.includes('renderer')) {
    const rendererDir = join(outDir, 'renderer');
    await rm(rendererDir, { recursive: true, force: true });
    await mkdir(rendererDir, { recursive: true });
    jobs.push(
      build({
        ...common,
        entryPoints: [join(root, 'src/renderer/renderer.ts')],
        outfile: join(rendererDir, 'renderer.js'),
        platform: 'browser',
        format: 'iife',
        target: 'chrome120',
      }),
      copyFile(join(root, 'src/renderer/index.html'), join(rendererDir, 'index.html')),
      copyFile(join(root, 'src/renderer/styles.css'), join(rendererDir, 'styles.css')),
      // The tab's icon in the web window (and no 404 for it in the log): the app icon, 32 px.
      copyFile(join(root, 'resources/icons/32x32.png'), join(rendererDir, 'favicon.png')),
    );
  }
  if (only.includes('web')) {
    jobs.push(
      build({
        ...common,
        entryPoints: [join(root, 'src/preload/web.ts')],
        outfile: join(outDir, 'web/web.js'),
        platform: 'browser',
        format: 'iife',
        target: 'chrome120',
      }),
    );
  }
  await Promise.all(jobs);
  return {
    outDir,
    main: join(outDir, 'main/index.mjs'),
    preload: join(outDir, 'preload/index.cjs'),
    renderer: join(outDir, 'renderer'),
    web: join(outDir, 'web', 'web.js'),
  };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const outDir = at === -1 ? undefined : process.argv[at + 1];
  buildApp(outDir === undefined ? {} : { outDir }).then(
    (paths) => console.log(`built the desktop app into ${paths.outDir}`),
    (error) => {
      console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
