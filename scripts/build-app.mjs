// Bundles the desktop app with esbuild into dist/app (docs/DESKTOP.md §Layout):
//   main/index.mjs     ESM, node platform; electron and node_modules stay external (electron-builder
//                      packs the production dependencies next to it)
//   preload/index.cjs  CommonJS: sandboxed preloads cannot be ESM
//   renderer/          browser IIFE + index.html + styles.css (strict CSP: no inline code)
//   web/web.js         the web window's bridge (browser IIFE, src/preload/web.ts), loaded
//                      before renderer.js by `updater serve` (src/web/web-window-server.ts)
// Usage: node scripts/build-app.mjs [--out DIR] [--signing-report [linux|mac|win]] [--no-build]
//        (or import { buildApp, signingReport } from it)
// --signing-report says, before electron-builder runs, which installers will be signed and
// which will NOT, from the environment electron-builder reads (docs/RELEASING.md).
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

const set = (env, name) => typeof env[name] === 'string' && env[name] !== '';

/**
 * Which installers electron-builder will sign with this environment, in plain words: one line
 * per platform, `signed` or `UNSIGNED` with what is missing. The variables are electron-builder's
 * own (docs/RELEASING.md); nothing here reads or prints their values.
 */
export function signingReport(env, platforms = ['linux', 'mac', 'win']) {
  const lines = [];
  let unsigned = false;
  if (platforms.includes('mac')) {
    const sign = set(env, 'CSC_LINK') || set(env, 'CSC_NAME');
    const notarize =
      (set(env, 'APPLE_API_KEY') && set(env, 'APPLE_API_KEY_ID') && set(env, 'APPLE_API_ISSUER')) ||
      (set(env, 'APPLE_ID') &&
        set(env, 'APPLE_APP_SPECIFIC_PASSWORD') &&
        set(env, 'APPLE_TEAM_ID')) ||
      (set(env, 'APPLE_KEYCHAIN') && set(env, 'APPLE_KEYCHAIN_PROFILE'));
    unsigned ||= !sign || !notarize;
    lines.push(
      `macOS: ${sign ? 'signed' : 'UNSIGNED (no CSC_LINK or CSC_NAME)'}, ${
        notarize
          ? 'notarized'
          : 'NOT NOTARIZED (no APPLE_API_KEY + APPLE_API_KEY_ID + APPLE_API_ISSUER)'
      }`,
    );
  }
  if (platforms.includes('win')) {
    const azure =
      set(env, 'AZURE_TENANT_ID') && set(env, 'AZURE_CLIENT_ID') && set(env, 'AZURE_CLIENT_SECRET');
    const file = set(env, 'WIN_CSC_LINK') || set(env, 'CSC_LINK');
    unsigned ||= !azure && !file;
    lines.push(
      `Windows: ${
        azure
          ? 'signed with Azure Trusted Signing (if azureSignOptions are given)'
          : file
            ? 'signed with a certificate file'
            : 'UNSIGNED (no WIN_CSC_LINK, CSC_LINK or AZURE_* credentials): SmartScreen will say "unknown publisher"'
      }`,
    );
  }
  if (platforms.includes('linux')) {
    lines.push(
      'Linux: AppImage and deb carry no OS signature; the registry signs them as targets (docs/RELEASING.md "Linux")',
    );
  }
  return { lines, unsigned };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = process.argv.indexOf('--signing-report');
  if (report !== -1) {
    const next = process.argv[report + 1];
    const platforms = ['linux', 'mac', 'win'].includes(next ?? '') ? [next] : undefined;
    const { lines, unsigned } = signingReport(process.env, platforms);
    for (const line of lines) console.log(`signing: ${line}`);
    if (unsigned) console.log('signing: THESE INSTALLERS WILL BE UNSIGNED (docs/RELEASING.md)');
  }
  const at = process.argv.indexOf('--out');
  const outDir = at === -1 ? undefined : process.argv[at + 1];
  if (!process.argv.includes('--no-build'))
    buildApp(outDir === undefined ? {} : { outDir }).then(
      (paths) => console.log(`built the desktop app into ${paths.outDir}`),
      (error) => {
        console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = 1;
      },
    );
}
