/**
 * `npm start` (scripts/start.mjs) must start the app the way Electron expects: `electron <dir>`
 * reads <dir>/package.json, whose "main" names the main bundle and whose "name" gives the app
 * its own userData directory (and so its own single-instance lock). Launching the bundle file
 * itself runs it as a nameless "Electron" app sharing ~/.config/Electron with every other one.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '#scripts/build-app.mjs';
import { browserOpener, electronBinary, launchArgs, startOptions } from '#scripts/start.mjs';

const root = resolve(import.meta.dirname, '../../..');

async function packageJson(): Promise<{ name?: string; main?: string; type?: string }> {
  return JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    name?: string;
    main?: string;
    type?: string;
  };
}

describe('npm start', () => {
  it('package.json "main" names the main bundle that build-app writes', async () => {
    const pkg = await packageJson();
    expect(pkg.main).toBeDefined();
    // Building nothing still reports where build-app writes its bundles by default.
    const built = await buildApp({ only: [] });
    expect(resolve(root, pkg.main ?? '')).toBe(built.main);
    // ESM main (Electron >= 28): .mjs, whatever the package "type" says.
    expect(pkg.main).toMatch(/\.mjs$/);
  });

  it('launches Electron on the app directory, not on the bundle file, passing user arguments', () => {
    expect(launchArgs(root, ['--verbose'])).toEqual([root, '--verbose']);
  });
});

describe('finding the Electron runtime (never downloads)', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  async function electronPackage(installed: boolean): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'start-electron-'));
    dirs.push(dir);
    if (installed) {
      await mkdir(join(dir, 'dist'));
      await writeFile(join(dir, 'dist', 'electron'), '');
      await writeFile(join(dir, 'path.txt'), 'electron');
    }
    return dir;
  }

  it('finds the runtime that install.js extracted (path.txt names it under dist/)', async () => {
    const dir = await electronPackage(true);
    expect(electronBinary({}, dir)).toBe(join(dir, 'dist', 'electron'));
  });

  it('reports a missing runtime as null, so start runs install.js', async () => {
    const dir = await electronPackage(false);
    expect(electronBinary({}, dir)).toBeNull();
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH as Electron itself does', async () => {
    const dir = await electronPackage(false);
    const custom = await electronPackage(false);
    await writeFile(join(custom, 'electron'), '');
    expect(electronBinary({ ELECTRON_OVERRIDE_DIST_PATH: custom }, dir)).toBe(
      join(custom, 'electron'),
    );
  });
});

describe('npm start: the web window', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it('takes --web and --no-open for itself and hands the rest to the app', () => {
    expect(startOptions(['--web', '--no-open', '--port', '8080'])).toEqual({
      error: undefined,
      web: true,
      open: false,
      appArgs: ['--port', '8080'],
    });
    expect(startOptions([])).toEqual({ error: undefined, web: false, open: true, appArgs: [] });
  });

  it('refuses an unknown option by name, with the nearest known one', () => {
    expect(startOptions(['--web', '--prot', '8080']).error).toBe(
      "unknown option '--prot' (did you mean '--port'?)",
    );
    expect(startOptions(['--bogus']).error).toBe("unknown option '--bogus'");
    expect(startOptions(['--data-dir=/tmp/x']).error).toBeUndefined();
  });

  it('opens the default browser with open (macOS) and start (Windows)', () => {
    expect(browserOpener('darwin', {})?.command).toBe('open');
    expect(browserOpener('win32', {})).toEqual({ command: 'cmd', args: ['/c', 'start', '""'] });
  });

  it('on Linux, uses xdg-open only in a desktop session where it is installed', async () => {
    const bin = await mkdtemp(join(tmpdir(), 'opener-'));
    dirs.push(bin);
    expect(browserOpener('linux', { DISPLAY: ':0', PATH: bin })).toBeNull();
    await writeFile(join(bin, 'xdg-open'), '');
    expect(browserOpener('linux', { DISPLAY: ':0', PATH: bin })?.command).toBe('xdg-open');
    expect(browserOpener('linux', { WAYLAND_DISPLAY: 'wayland-0', PATH: bin })?.command).toBe(
      'xdg-open',
    );
    // No display: a server or CI, no browser to open.
    expect(browserOpener('linux', { PATH: bin })).toBeNull();
  });
});
