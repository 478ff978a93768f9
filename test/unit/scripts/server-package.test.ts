/**
 * The package manifest of `verified-updater-server` (packages/server) stays in step with the
 * repository: the same pinned versions as the root install that the tests ran against, and
 * entry points that the build (scripts/build-server-package.mjs) writes.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { satisfies } from 'semver';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

/**
 * Not imported by the package, pinned only so that npm resolves its dependent's range to a
 * version that installs on the package's lowest Node: light-my-request 6.8 (fastify's, for
 * `inject()`, which the package never calls) needs cookie 2, which declares node >= 22; 6.6.0
 * takes cookie 1 (node >= 18), and npm dedupes fastify's `^6.0.0` onto it (docs/SERVER.md
 * §As a package, Node versions).
 */
const RESOLUTION_PINS: Readonly<Record<string, string>> = { 'light-my-request': 'fastify' };

interface Manifest {
  name: string;
  version: string;
  type?: string;
  bin?: Record<string, string>;
  exports?: Record<string, unknown>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const read = async (path: string): Promise<Manifest> =>
  JSON.parse(await readFile(join(root, path), 'utf8')) as Manifest;

describe('packages/server/package.json', () => {
  it('pins every dependency to the exact version the repository installs and tests', async () => {
    const [pkg, rootPkg] = await Promise.all([
      read('packages/server/package.json'),
      read('package.json'),
    ]);
    const repo = { ...rootPkg.devDependencies, ...rootPkg.dependencies };
    for (const [name, version] of Object.entries(pkg.dependencies ?? {})) {
      expect(version, name).toMatch(/^\d+\.\d+\.\d+$/);
      if (name in RESOLUTION_PINS) continue;
      expect(repo[name], name).toBe(version);
    }
  });

  it('pins what would need a newer Node than its engines to a version inside the range its dependent asks for', async () => {
    const pkg = await read('packages/server/package.json');
    for (const [name, dependent] of Object.entries(RESOLUTION_PINS)) {
      const pinned = pkg.dependencies?.[name] ?? '';
      const wanted = (await read(`node_modules/${dependent}/package.json`)).dependencies?.[name];
      expect(satisfies(pinned, wanted ?? ''), `${dependent} asks for ${name}@${wanted}`).toBe(true);
    }
  });

  it('names the bin after the package and points it and the exports into dist', async () => {
    const pkg = await read('packages/server/package.json');
    expect(pkg.type).toBe('module');
    expect(pkg.bin).toEqual({ [pkg.name]: 'dist/bin.js' });
    expect(pkg.exports?.['.']).toEqual({
      types: './dist/types/packages/server/src/index.d.ts',
      default: './dist/index.js',
    });
  });

  it('declares the same Node versions as the repository and the same version number', async () => {
    const [pkg, rootPkg] = await Promise.all([
      read('packages/server/package.json'),
      read('package.json'),
    ]);
    expect(pkg.engines).toEqual(rootPkg.engines);
    expect(pkg.version).toBe(rootPkg.version);
  });
});
