// `npm start`: builds the desktop app, then launches it with Electron. Electron 42 installs
// without its runtime; the first start fetches it with Electron's own install script (needs
// internet once). Where that is impossible, say so plainly and exit 1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from './build-app.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = join(root, 'node_modules', 'electron');

/**
 * The Electron executable, or null when the runtime is not installed. Never downloads. Finds
 * it where node_modules/electron/index.js does: path.txt names it under dist/, or under
 * ELECTRON_OVERRIDE_DIST_PATH when that is set.
 */
export function electronBinary(env = process.env, dir = electronDir) {
  const pathFile = join(dir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = env['ELECTRON_OVERRIDE_DIST_PATH'];
  let binary = null;
  if (override !== undefined && override !== '') binary = join(override, relative ?? 'electron');
  else if (relative !== null) binary = join(dir, 'dist', relative);
  return binary !== null && existsSync(binary) ? binary : null;
}

function installRuntime() {
  console.log('The Electron runtime is not installed yet: running Electron’s install script…');
  const result = spawnSync(process.execPath, [join(electronDir, 'install.js')], {
    cwd: electronDir,
    stdio: 'inherit',
  });
  return result.status === 0 ? electronBinary() : null;
}

/**
 * Electron's arguments: the app directory, so Electron reads package.json ("main" names the
 * bundle, "name" gives the app its own userData directory and single-instance lock). Given
 * the bundle file instead, Electron runs it as a nameless "Electron" app.
 */
export function launchArgs(appDir, userArgs) {
  return [appDir, ...userArgs];
}

async function main() {
  const built = await buildApp();
  console.log(`built the desktop app into ${built.outDir}`);
  const binary = electronBinary() ?? installRuntime();
  if (binary === null) {
    console.error(
      [
        'Could not start the desktop app: the Electron runtime is missing and could not be',
        'downloaded (no internet access, or a proxy/firewall blocks github.com).',
        'Fix: run `node node_modules/electron/install.js` on a connected machine, or set',
        'ELECTRON_MIRROR / ELECTRON_CUSTOM_DIR, then `npm start` again. The headless updater',
        'works without Electron: `npm run updater -- --help`.',
      ].join('\n'),
    );
    process.exitCode = 1;
    return;
  }
  const child = spawn(binary, launchArgs(root, process.argv.slice(2)), {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 0 : 1);
  });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
