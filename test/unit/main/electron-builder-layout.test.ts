/**
 * Packaging check of electron-builder.yml against electron-builder 26.17's own code: the file is
 * validated by electron-builder's schema validator, then a copy of the project is packaged for
 * Linux (`dir`, AppImage and deb) against a STAND-IN Electron distribution (a fake `electron`
 * executable carrying a fuse wire, passed as `electronDist`), so nothing is downloaded.
 *
 * - `dir`: the real packaged layout: app.asar, resources/ (pinned key, icons, a registry.json),
 *   and the fuse wire electron-builder flipped in the binary (read back with @electron/fuses).
 * - AppImage: electron-builder's `effectiveOptionComputed` hook hands over the desktop entry it
 *   generated and skips the squashfs (whose toolset would be downloaded).
 * - deb: electron-builder computes its fpm invocation; the fpm call itself is replaced by a
 *   recorder (fpm would be downloaded), so the test sees the exact `Depends` and desktop entry.
 * - NSIS cannot be built here (makensis and its plugins are downloaded, and the Windows layout
 *   needs a real electron.exe): its config and the custom script are checked as text.
 * It does not prove that the real Electron runtime starts the app (test/e2e/electron-smoke).
 */
import {
  chmod,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ElectronBuilder from 'electron-builder';
import { buildApp } from '#scripts/build-app.mjs';
import { parseShippedRegistry } from '#app/registry/shipped-registry.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);

interface BuilderConfig {
  appId: string;
  productName: string;
  artifactName: string;
  files: string[];
  extraMetadata: { main: string };
  extraResources: { from: string; to: string; filter: string[] }[];
  electronFuses: Record<string, boolean>;
  toolsets: { appimage: string };
  linux: { target: string[]; icon: string; maintainer: string };
  deb: { depends: string[] };
  mac: {
    target: { target: string; arch: string[] }[];
    hardenedRuntime: boolean;
    entitlements: string;
    entitlementsInherit: string;
  };
  win: { target: string[] };
  nsis: Record<string, unknown> & { include: string };
  directories: { output: string; buildResources: string };
}

interface FuseModule {
  getCurrentFuseWire(path: string): Promise<Record<string, number | string>>;
  FuseV1Options: Record<string, number>;
}

/** @electron/fuses' sentinel, version 1, eight fuses (Electron's layout, docs in fuses.md). */
const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/** Electron's shipped defaults, in wire order: RunAsNode on, cookies off, NODE_OPTIONS on, ... */
const STOCK_WIRE = '10110001';
const FUSE = { DISABLE: 48, ENABLE: 49 } as const;

const KEY = 'ab'.repeat(32);
const SHIPPED_REGISTRY = { base_url: 'https://updates.example.com', pinned_keys: [KEY] };

function yaml(): { load(text: string): unknown } {
  // js-yaml ships with electron-builder (no extra dependency).
  return require('js-yaml') as { load(text: string): unknown };
}

async function loadConfig(): Promise<BuilderConfig> {
  return yaml().load(await readFile(join(ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
}

/** electron-builder's own validator (schema.json + its deprecation checks). */
async function validate(config: unknown): Promise<void> {
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
    validateConfiguration: (config: unknown, debug: unknown) => Promise<void>;
  };
  const { DebugLogger } = require('builder-util') as { DebugLogger: new (on: boolean) => unknown };
  await validateConfiguration(config, new DebugLogger(false));
}

/** A copy of the project electron-builder can package: the config, the bundles, resources. */
async function stageProject(work: string): Promise<string> {
  const project = join(work, 'project');
  await mkdir(project, { recursive: true });
  for (const file of ['package.json', 'package-lock.json', 'electron-builder.yml']) {
    await cp(join(ROOT, file), join(project, file));
  }
  await cp(join(ROOT, 'dist', 'app'), join(project, 'dist', 'app'), { recursive: true });
  await cp(join(ROOT, 'resources'), join(project, 'resources'), { recursive: true });
  // What a distributor adds: the registry the packaged app uses instead of the demo.
  await writeFile(join(project, 'resources', 'registry.json'), JSON.stringify(SHIPPED_REGISTRY));
  await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
  return project;
}

/** The stand-in Electron distribution: a shell script carrying Electron's stock fuse wire. */
async function standInElectron(work: string): Promise<string> {
  const electronDist = join(work, 'electron-dist');
  await mkdir(join(electronDist, 'resources'), { recursive: true });
  const binary = Buffer.concat([
    Buffer.from('#!/bin/sh\necho stand-in electron\nexit 0\n# '),
    Buffer.from(FUSE_SENTINEL),
    Buffer.from([1, STOCK_WIRE.length]),
    Buffer.from(STOCK_WIRE),
    Buffer.from('\n'),
  ]);
  await writeFile(join(electronDist, 'electron'), binary);
  await chmod(join(electronDist, 'electron'), 0o755);
  await writeFile(join(electronDist, 'LICENSE'), 'stand-in\n');
  return electronDist;
}

interface FpmCall {
  target: string;
  customDepends?: string[];
  args: string[];
}

describe('electron-builder packaging', () => {
  let config: BuilderConfig;
  let work: string;
  let appOutDir: string;
  const artifacts: string[] = [];
  let appImageDesktop = '';
  let debDesktop = '';
  const fpmCalls: FpmCall[] = [];

  beforeAll(async () => {
    config = await loadConfig();
    work = await mkdtemp(join(tmpdir(), 'builder-layout-'));
    await buildApp();
    const project = await stageProject(work);
    const electronDist = await standInElectron(work);

    // fpm is downloaded on first use: record the invocation electron-builder computed instead.
    const fpmTarget = (
      require('app-builder-lib/out/targets/FpmTarget.js') as {
        default: { prototype: { executeFpm: unknown } };
      }
    ).default.prototype;
    const realExecuteFpm = fpmTarget.executeFpm;
    fpmTarget.executeFpm = (target: string, fpm: Omit<FpmCall, 'target'>): Promise<void> => {
      fpmCalls.push({ target, ...fpm });
      return Promise.resolve();
    };
    const { build, Platform } = require('electron-builder') as typeof ElectronBuilder;
    const electronVersion = (require('electron/package.json') as { version: string }).version;
    try {
      await build({
        projectDir: project,
        targets: Platform.LINUX.createTarget(['dir', 'AppImage', 'deb']),
        publish: 'never',
        // Only overrides: electron-builder loads electron-builder.yml from projectDir itself.
        config: {
          electronDist,
          electronVersion,
          directories: { ...config.directories, output: join(work, 'out') },
          artifactBuildStarted: (event) => {
            artifacts.push(basename(event.file));
          },
        },
        effectiveOptionComputed: async (options: unknown) => {
          if (Array.isArray(options)) {
            // deb: [fpm args, desktop file]; let it go on to the (recorded) fpm call.
            debDesktop = await readFile(String(options[1]), 'utf8');
            return false;
          }
          const computed = options as { desktop?: string };
          if (computed.desktop !== undefined) {
            appImageDesktop = computed.desktop;
            return true; // skip the squashfs: its runtime would be downloaded
          }
          return false;
        },
      });
    } finally {
      fpmTarget.executeFpm = realExecuteFpm;
    }
    appOutDir = join(work, 'out', 'linux-unpacked');
  }, 180_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('is valid for electron-builder 26.17 (its own schema validator)', async () => {
    const version = (require('app-builder-lib/package.json') as { version: string }).version;
    expect(version).toMatch(/^26\.17\./);
    await expect(validate(config)).resolves.toBeUndefined();
  });

  it('would refuse a misspelt key, so the validation above can fail', async () => {
    await expect(
      validate({ ...config, electronFuses: { ...config.electronFuses, runAsnode: false } }),
    ).rejects.toThrow(/configuration\.electronFuses should be/);
    await expect(validate({ ...config, toolsets: { appimage: '9.9.9' } })).rejects.toThrow(
      /configuration\.toolsets/,
    );
  });

  it('targets AppImage+deb, dmg with hardened runtime and entitlements, and nsis', async () => {
    expect(config.appId).toMatch(/^[a-z0-9.-]+$/);
    expect(config.productName).toBe('Verified Updater');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.linux.maintainer).toMatch(/<.+@.+>/); // deb refuses to build without it
    expect(config.mac.target).toEqual([
      { target: 'dmg', arch: ['universal'] },
      { target: 'zip', arch: ['universal'] },
    ]);
    expect(config.mac.hardenedRuntime).toBe(true);
    const plist = await readFile(join(ROOT, config.mac.entitlements), 'utf8');
    expect(plist).toContain('com.apple.security.cs.allow-jit');
    // No blanket exemptions under the hardened runtime.
    expect(plist).not.toContain('disable-library-validation');
    expect(config.mac.entitlementsInherit).toBe(config.mac.entitlements);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('names every artifact without spaces', () => {
    expect(artifacts.sort()).toEqual([
      expect.stringMatching(/^verified-updater-0\.1\.0-linux-amd64\.deb$/),
      expect.stringMatching(/^verified-updater-0\.1\.0-linux-x86_64\.AppImage$/),
    ]);
    expect(config.artifactName).not.toMatch(/\s/);
    // Applies to every target, nsis included (nsis.artifactName would override it).
    expect(config.nsis['artifactName']).toBeUndefined();
  });

  it('builds the AppImage with the current toolset: no --no-sandbox in its desktop entry', () => {
    expect(config.toolsets.appimage).toBe('1.0.3');
    expect(appImageDesktop).toMatch(/^Exec=AppRun %U$/m);
    expect(appImageDesktop).not.toContain('--no-sandbox');
  });

  it("keeps electron-builder's default deb dependencies and adds GBM and ALSA", () => {
    const defaults = (
      require('app-builder-lib/out/targets/FpmTarget.js') as {
        default: { prototype: { getDefaultDepends(target: string): string[] } };
      }
    ).default.prototype.getDefaultDepends('deb');
    expect(defaults.length).toBeGreaterThan(5);
    const [deb] = fpmCalls.filter((call) => call.target === 'deb');
    expect(deb?.customDepends).toEqual([...defaults, 'libgbm1', 'libasound2t64 | libasound2']);
    expect(debDesktop).toMatch(/^Exec=/m);
    expect(debDesktop).not.toContain('--no-sandbox');
  });

  it('flips the fuses in the packaged binary: no Node mode, NODE_OPTIONS or inspector', async () => {
    const fuses = require('@electron/fuses') as FuseModule;
    const wire = await fuses.getCurrentFuseWire(join(appOutDir, 'verified-updater'));
    const state = (name: string): number | string | undefined =>
      wire[String(fuses.FuseV1Options[name])];
    expect(state('RunAsNode')).toBe(FUSE.DISABLE);
    expect(state('EnableNodeOptionsEnvironmentVariable')).toBe(FUSE.DISABLE);
    expect(state('EnableNodeCliInspectArguments')).toBe(FUSE.DISABLE);
    expect(state('GrantFileProtocolExtraPrivileges')).toBe(FUSE.DISABLE);
    expect(state('OnlyLoadAppFromAsar')).toBe(FUSE.ENABLE);
    expect(state('EnableEmbeddedAsarIntegrityValidation')).toBe(FUSE.ENABLE);
    // Not configured: left as Electron ships it.
    expect(state('EnableCookieEncryption')).toBe(STOCK_WIRE.charCodeAt(1));
  });

  it('installs per user without the per-machine page, and asks before removing secrets', async () => {
    expect(config.nsis).toMatchObject({
      oneClick: false,
      perMachine: false,
      allowElevation: false,
      allowToChangeInstallationDirectory: true,
      include: 'resources/installer.nsh',
    });
    const script = await readFile(join(ROOT, config.nsis.include), 'utf8');
    // electron-builder's multiUserUi.nsh skips the install-mode page when this is set.
    expect(script).toMatch(
      /!macro customInstallMode\s+StrCpy \$isForceCurrentInstall "1"\s+!macroend/,
    );
    const uninstall = /!macro customUnInstall\n([\s\S]*?)!macroend/.exec(script)?.[1] ?? '';
    // Never on an update (the updater runs the old uninstaller with --updated).
    expect(uninstall).toMatch(/\$\{ifNot\} \$\{isUpdated\}/);
    // Asks, defaults to No, and a silent uninstall keeps the data.
    expect(uninstall).toMatch(/MessageBox MB_YESNO\|MB_ICONQUESTION\|MB_DEFBUTTON2/);
    expect(uninstall).toContain('/SD IDNO IDNO keepAppData');
    // userData is %APPDATA%\<app name>: package name, product name or file name.
    expect(uninstall).toContain('RMDir /r "$APPDATA\\${APP_PACKAGE_NAME}"');
    expect(uninstall).toContain('RMDir /r "$APPDATA\\${APP_FILENAME}"');
    // Those names exist as defines in electron-builder's NSIS template.
    const template = await readFile(
      require.resolve('app-builder-lib/templates/nsis/uninstaller.nsh'),
      'utf8',
    );
    expect(template).toContain('${APP_PACKAGE_NAME}');
    expect(template).toContain('!insertmacro customUnInstall');
  });

  it('ships the bundles only, and the pinned PUBLIC key, icons and registry.json as resources', async () => {
    expect(config.files).toEqual(['package.json', 'dist/app/**/*', '!**/*.map']);
    expect(config.extraMetadata.main).toBe('dist/app/main/index.mjs');
    const [extra] = config.extraResources;
    expect(extra).toMatchObject({ from: 'resources', to: 'resources' });
    const key = (await readFile(join(ROOT, 'resources/pinned-key.txt'), 'utf8')).trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/); // a 32-byte public key, nothing more
    const names = await readdir(join(ROOT, 'resources'));
    expect(names.filter((n) => /\.(key|pem)$/.test(n))).toEqual([]);
    // The repository itself ships no registry.json: without one the demo registry runs.
    expect(names).not.toContain('registry.json');

    const top = await readdir(appOutDir);
    expect(top).toContain('resources');
    // electron-builder renamed the stand-in binary after the package (executableName).
    expect(top).toContain('verified-updater');
    expect((await readdir(join(appOutDir, 'resources', 'resources'))).sort()).toEqual([
      'icon.png',
      'pinned-key.txt',
      'registry.json',
      'tray.ico',
      'tray.png',
      'tray@2x.png',
      'trayTemplate.png',
      'trayTemplate@2x.png',
    ]);
    // The packaged registry.json is the one the app reads instead of the demo.
    const shipped = await readFile(
      join(appOutDir, 'resources', 'resources', 'registry.json'),
      'utf8',
    );
    expect(parseShippedRegistry(shipped)).toEqual({
      baseUrl: SHIPPED_REGISTRY.base_url,
      pinnedKeys: SHIPPED_REGISTRY.pinned_keys,
    });
    // Nothing but the listed names, so a private key dropped into resources/ stays out.
    expect(extra?.filter).not.toContain('*');
  });

  it('packs app.asar with the bundles and production dependencies only', () => {
    const asar = require('@electron/asar') as {
      listPackage(path: string, options: object): string[];
      extractFile(archive: string, filename: string): Buffer;
    };
    const archive = join(appOutDir, 'resources', 'app.asar');
    const files = asar.listPackage(archive, {}).map((f) => f.replaceAll('\\', '/'));
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
    for (const dep of ['fastify', 'jose', 'electron-store', '@noble/ed25519']) {
      expect(files).toContain(`/node_modules/${dep}/package.json`);
    }
    // No sources, maps, tests or dev tooling in the package.
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /^\/(src|test|server|scripts)\//.test(f))).toEqual([]);
    expect(files.filter((f) => /^\/node_modules\/(electron|vitest|esbuild)\//.test(f))).toEqual([]);
    const pkg = JSON.parse(asar.extractFile(archive, 'package.json').toString()) as {
      main: string;
    };
    expect(pkg.main).toBe('dist/app/main/index.mjs');
  });
});
