// `npm start`: builds the desktop app, then launches it with Electron. Electron 42 installs
// without its runtime; the first start fetches it with Electron's own install script (needs
// internet once). Where that is impossible, it says so in one line and opens the same window
// as a local web page instead (`updater serve` against the embedded demo registry,
// docs/DESKTOP.md §Web window). `npm start -- --web` picks the web window on purpose;
// `--no-open` prints its address without opening a browser. Its options are checked before
// anything is built or downloaded; a SIGINT or SIGTERM to it (npm passes them on: the script is
// `exec node scripts/start.mjs`, so npm's child is this process) stops what it started.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildApp } from './build-app.mjs';
import { buildCli, isStale } from './build-cli.mjs';
import { unknownOptionMessage } from './closest-option.mjs';

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

/** npm start's own options, then those it hands to `updater serve` (src/cli/serve-args.ts). */
export const START_OPTIONS = ['--web', '--no-open'];
export const SERVE_OPTIONS = [
  '--port',
  '--listen',
  '--data-dir',
  '--base-url',
  '--pubkey',
  '--machine-key',
  '--machine-key-file',
  '--interval-s',
  '--require-nonce',
  '--no-proxy',
];

/**
 * Splits npm start's own flags (--web, --no-open) from the ones handed to the app; `error` is
 * the refusal of the first unknown option, with the nearest known one.
 */
export function startOptions(argv) {
  const own = new Set(START_OPTIONS);
  const known = [...START_OPTIONS, ...SERVE_OPTIONS];
  const unknown = argv.find((arg) => arg.startsWith('-') && !known.includes(arg.split('=')[0]));
  return {
    error: unknown === undefined ? undefined : unknownOptionMessage(unknown.split('=')[0], known),
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

/**
 * A SIGINT or SIGTERM to this process is passed on to `child`, and this process ends with it.
 * Ctrl+C in a terminal signals the whole group, so the child may get SIGINT twice: `serve` and
 * Electron both stop cleanly either way. Whoever signals only npm (a CI job's timeout, a
 * process manager) or only this process stops all of it too.
 */
function passSignalsTo(child) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal === null ? 0 : 1));
  });
}

/** Runs `updater serve` (demo registry), prints its address, and lives as long as it does. */
async function startWeb(options) {
  const cliFile = join(root, 'dist', 'cli', 'updater.mjs');
  const cli = (await isStale(cliFile)) ? await buildCli() : cliFile;
  const child = spawn(process.execPath, [cli, 'serve', ...options.appArgs], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  passSignalsTo(child);
  // serve's stderr ("…; open the address above") waits until the address is out, so the words
  // come after the address they point at (two pipes give no order of their own).
  let heldErr = [];
  const errLines = createInterface({ input: child.stderr });
  errLines.on('line', (line) => {
    if (heldErr === null) console.error(line);
    else heldErr.push(line);
  });
  const releaseErr = () => {
    for (const line of heldErr ?? []) console.error(line);
    heldErr = null;
  };
  child.stdout.on('end', releaseErr);
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
      releaseErr();
      return;
    }
    console.log(`The updater window is at ${url}`);
    releaseErr();
    if (options.open) openBrowser(url);
  });
}

async function main() {
  const options = startOptions(process.argv.slice(2));
  if (options.error !== undefined) {
    console.error(`npm start: ${options.error}`);
    process.exitCode = 2;
    return;
  }
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
  passSignalsTo(child);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
