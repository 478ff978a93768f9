/**
 * The package manifest of `verified-updater-server` (packages/server) stays in step with the
 * repository: the same pinned versions as the root install that the tests ran against, and
 * entry points that the build (scripts/build-server-package.mjs) writes.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

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
      expect(repo[name], name).toBe(version);
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
