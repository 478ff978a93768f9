/**
 * package.json `allowScripts` (npm ≥ 11.16, README "Install scripts") names exactly the
 * packages of the lockfile that have install scripts: a new one is noticed here, not only as
 * an npm advisory (or, with npm 12, a silently skipped script).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

const readJson = async (name: string): Promise<Record<string, unknown>> =>
  JSON.parse(await readFile(join(root, name), 'utf8')) as Record<string, unknown>;

describe('package.json allowScripts', () => {
  it('names every locked package with an install script, and nothing else', async () => {
    const lock = (await readJson('package-lock.json')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = new Set(
      Object.entries(lock.packages)
        .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
        .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
    );
    const allowed = (await readJson('package.json'))['allowScripts'] as Record<string, boolean>;
    expect(Object.keys(allowed).sort()).toEqual([...withScripts].sort());
    expect(Object.values(allowed).every((v) => v)).toBe(true);
  });
});
