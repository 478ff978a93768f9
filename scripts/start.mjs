// `npm start`: builds the desktop app, then launches it with Electron. Electron 42 installs
// without its runtime; the first start fetches it with Electron's own install script (needs
// internet once). Where that is impossible, it says so in one line and opens the same window
// as a local web page instead (`updater serve` against the embedded demo registry,
// docs/DESKTOP.md §Web window). `npm start -- --web` picks the web window on purpose;
// `--no-open` prints its address without opening a browser.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildApp } from './build-app.mjs';
import { buildCli } from './build-cli.mjs';

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

/**
 * Runs Electron's install script quietly (its failure is a long stack trace); returns the
 * binary, or null with the script's last line as the reason.
 */
function installRuntime() {
  console.log('The Electron runtime is not installed yet: running Electron’s install script…');
  const result = spawnSync(process.execPath, [join(electronDir, 'install.js')], {
    cwd: electronDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const binary = result.status === 0 ? electronBinary() : null;
  const lines = `${result.stderr ?? ''}`.split('\n').filter((line) => line.trim() !== '');
  const reason = lines.find((line) => /error/i.test(line)) ?? lines[0] ?? 'no reason given';
  return { binary, reason: reason.trim() };
}

/**
 * Electron's arguments: the app directory, so Electron reads package.json ("main" names the
 * bundle, "name" gives the app its own userData directory and single-instance lock). Given
 * the bundle file instead, Electron runs it as a nameless "Electron" app.
 */
export function launchArgs(appDir, userArgs) {
  return [appDir, ...userArgs];
}

/** Splits npm start's own flags (--web, --no-open) from the ones handed to the app. */
export function startOptions(argv) {
  const own = new Set(['--web', '--no-open']);
  return {
    web: argv.includes('--web'),
    open: !argv.includes('--no-open'),
    appArgs: argv.filter((arg) => !own.has(arg)),
  };
}

/**
 * The command that opens a URL in the default browser here, or null where there is none
 * (no desktop session on Linux, no opener installed).
 */
export function browserOpener(platform = process.platform, env = process.env) {
  if (platform === 'darwin') return { command: 'open', args: [] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] };
  if ((env['DISPLAY'] ?? '') === '' && (env['WAYLAND_DISPLAY'] ?? '') === '') return null;
  const found = (env['PATH'] ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && existsSync(join(dir, 'xdg-open')));
  return found ? { command: 'xdg-open', args: [] } : null;
}

function openBrowser(url) {
  const opener = browserOpener();
  if (opener === null) {
    console.log('No default browser found here: open the address above yourself.');
    return;
  }
  const child = spawn(opener.command, [...opener.args, url], { stdio: 'ignore', detached: true });
  child.on('error', () => console.log('Could not open a browser: open the address above.'));
  child.unref();
}

/** Runs `updater serve` (demo registry), prints its address, and lives as long as it does. */
async function startWeb(options) {
  const cli = await buildCli();
  const child = spawn(process.execPath, [cli, 'serve', ...options.appArgs], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  // Ctrl+C reaches the child too (same process group): wait for it to close cleanly. A
  // SIGTERM sent to npm start alone is passed on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const lines = createInterface({ input: child.stdout });
  let first = true;
  lines.on('line', (line) => {
    if (!first) {
      console.log(line);
      return;
    }
    first = false;
    let url = null;
    try {
      url = JSON.parse(line).url;
    } catch {
      // not the JSON line: shown as it is below
    }
    if (typeof url !== 'string') {
      console.log(line);
      return;
    }
    console.log(`The updater window is at ${url}`);
    if (options.open) openBrowser(url);
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 0 : 1);
  });
}

async function main() {
  const options = startOptions(process.argv.slice(2));
  const built = await buildApp();
  console.log(`built the desktop app into ${built.outDir}`);
  if (options.web) return startWeb(options);
  let binary = electronBinary();
  if (binary === null) {
    const installed = installRuntime();
    binary = installed.binary;
    if (binary === null) {
      console.log(
        `The Electron runtime is missing and could not be downloaded (${installed.reason}): ` +
          'opening the web window instead (`npm start -- --web` does this on purpose).',
      );
      return startWeb(options);
    }
  }
  const child = spawn(binary, launchArgs(root, options.appArgs), {
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
