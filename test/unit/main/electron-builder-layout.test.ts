/**
 * electron-builder layout check: validates electron-builder.yml and packages the `--dir`
 * layout for Linux against a STAND-IN Electron distribution (a fake `electron` executable in
 * a temp dir, passed as `electronDist`), so nothing is downloaded. It proves the packaged
 * file list (app.asar contents, resources/ with the pinned key and icons); it does not prove
 * that the real Electron runtime starts the app (see test/e2e/electron-smoke.spec.ts).
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ElectronBuilder from 'electron-builder';
import { buildApp } from '../../../scripts/build-app.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);

interface BuilderConfig {
  appId: string;
  productName: string;
  files: string[];
  extraMetadata: { main: string };
  extraResources: { from: string; to: string; filter: string[] }[];
  linux: { target: string[]; icon: string; maintainer: string };
  mac: {
    target: string[];
    hardenedRuntime: boolean;
    entitlements: string;
    entitlementsInherit: string;
  };
  win: { target: string[] };
  directories: { output: string; buildResources: string };
}

async function loadConfig(): Promise<BuilderConfig> {
  // js-yaml ships with electron-builder (no extra dependency).
  const yaml = require('js-yaml') as { load(text: string): unknown };
  return yaml.load(await readFile(join(ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
}

describe('electron-builder layout check', () => {
  let config: BuilderConfig;
  let work: string;
  let appOutDir: string;

  beforeAll(async () => {
    config = await loadConfig();
    work = await mkdtemp(join(tmpdir(), 'builder-layout-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('targets AppImage+deb, dmg with hardened runtime and entitlements, and nsis', async () => {
    expect(config.appId).toMatch(/^[a-z0-9.-]+$/);
    expect(config.productName).toBe('Verified Updater');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.linux.maintainer).toMatch(/<.+@.+>/); // deb refuses to build without it
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.mac.hardenedRuntime).toBe(true);
    const plist = await readFile(join(ROOT, config.mac.entitlements), 'utf8');
    expect(plist).toContain('com.apple.security.cs.allow-jit');
    // No blanket exemptions under the hardened runtime.
    expect(plist).not.toContain('disable-library-validation');
    expect(config.mac.entitlementsInherit).toBe(config.mac.entitlements);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('ships the bundles only, and the pinned PUBLIC key and icons as extra resources', async () => {
    expect(config.files).toEqual(['package.json', 'dist/app/**/*', '!**/*.map']);
    expect(config.extraMetadata.main).toBe('dist/app/main/index.mjs');
    const [extra] = config.extraResources;
    expect(extra).toMatchObject({ from: 'resources', to: 'resources' });
    expect(extra?.filter).toEqual(
      expect.arrayContaining(['pinned-key.txt', 'tray.png', 'trayTemplate.png', 'icon.png']),
    );
    const key = (await readFile(join(ROOT, 'resources/pinned-key.txt'), 'utf8')).trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/); // a 32-byte public key, nothing more
    const names = await readdir(join(ROOT, 'resources'));
    expect(names.filter((n) => /\.(key|pem)$/.test(n))).toEqual([]);
  });

  it('packages the --dir layout against a stand-in Electron, offline', async () => {
    await buildApp();
    // The stand-in distribution: what electron-builder copies and renames for Linux.
    const electronDist = join(work, 'electron-dist');
    await mkdir(join(electronDist, 'resources'), { recursive: true });
    await writeFile(join(electronDist, 'electron'), '#!/bin/sh\necho stand-in electron\n');
    await chmod(join(electronDist, 'electron'), 0o755);
    await writeFile(join(electronDist, 'LICENSE'), 'stand-in\n');
    const { build, Platform } = require('electron-builder') as typeof ElectronBuilder;
    const electronVersion = (require('electron/package.json') as { version: string }).version;
    const output = join(work, 'out');
    await build({
      projectDir: ROOT,
      targets: Platform.LINUX.createTarget('dir'),
      publish: 'never',
      // Only overrides: electron-builder loads electron-builder.yml from projectDir itself and
      // merges these on top (passing the whole file again would duplicate its arrays).
      config: {
        electronDist,
        electronVersion,
        directories: { ...config.directories, output },
      },
    });
    appOutDir = join(output, 'linux-unpacked');
    const top = await readdir(appOutDir);
    expect(top).toContain('resources');
    // electron-builder renamed the stand-in binary after the product (executableName).
    expect(top.some((n) => n === 'verified-updater' || n === 'Verified Updater')).toBe(true);

    const resources = await readdir(join(appOutDir, 'resources'));
    expect(resources).toContain('app.asar');
    expect((await readdir(join(appOutDir, 'resources', 'resources'))).sort()).toEqual([
      'icon.png',
      'pinned-key.txt',
      'tray.png',
      'tray@2x.png',
      'trayTemplate.png',
      'trayTemplate@2x.png',
    ]);
    const asar = require('@electron/asar') as {
      listPackage(path: string, options: object): string[];
      extractFile(archive: string, filename: string): Buffer;
    };
    const files = asar
      .listPackage(join(appOutDir, 'resources', 'app.asar'), {})
      .map((f) => f.replaceAll('\\', '/'));
    expect(files).toEqual(
      expect.arrayContaining([
        '/package.json',
        '/dist/app/main/index.mjs',
        '/dist/app/preload/index.cjs',
        '/dist/app/renderer/index.html',
        '/dist/app/renderer/renderer.js',
        '/dist/app/renderer/styles.css',
      ]),
    );
    // Production dependencies the main bundle imports at runtime are packed.
    for (const dep of ['fastify', 'got', 'electron-store', '@noble/ed25519']) {
      expect(files).toContain(`/node_modules/${dep}/package.json`);
    }
    // No sources, maps, tests or dev tooling in the package.
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /^\/(src|test|server|scripts)\//.test(f))).toEqual([]);
    expect(files.filter((f) => /^\/node_modules\/(electron|vitest|esbuild)\//.test(f))).toEqual([]);
    const pkg = JSON.parse(
      asar.extractFile(join(appOutDir, 'resources', 'app.asar'), 'package.json').toString(),
    ) as { main: string };
    expect(pkg.main).toBe('dist/app/main/index.mjs');
  }, 120_000);
});
