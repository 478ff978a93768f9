/**
 * The two packages QA teams install (docs/SERVER.md §As a package): each builds itself when
 * packed, takes its repository and homepage from the root package.json when packed (never a
 * made-up address of its own; docs/RELEASING.md §The npm packages), and carries the docs its
 * README links to, so no link of the installed README points outside the package.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_DOCS } from '#scripts/build-server-package.mjs';
import { UPDATER_PACKAGE_DOCS } from '#scripts/build-updater-package.mjs';

const root = resolve(import.meta.dirname, '../../..');

interface Manifest {
  name: string;
  homepage?: string;
  repository?: { type: string; url: string; directory: string };
  scripts?: Record<string, string>;
  files?: string[];
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  engines?: Record<string, string>;
}

const PACKAGES = [
  { dir: 'packages/server', name: 'verified-updater-server', docs: PACKAGE_DOCS },
  { dir: 'packages/updater', name: 'verified-updater', docs: UPDATER_PACKAGE_DOCS },
] as const;

describe.each(PACKAGES)('$name', ({ dir, name, docs }) => {
  const manifest = async (): Promise<Manifest> =>
    JSON.parse(await readFile(join(root, dir, 'package.json'), 'utf8')) as Manifest;

  it('builds itself and takes its links from the root when packed (prepack), and puts its manifest back (postpack)', async () => {
    const { scripts } = await manifest();
    expect(scripts?.['prepack']).toMatch(
      /^node \.\.\/\.\.\/scripts\/build-[a-z]+-package\.mjs && node \.\.\/\.\.\/scripts\/package-links\.mjs stamp$/,
    );
    expect(scripts?.['postpack']).toBe('node ../../scripts/package-links.mjs restore');
  });

  it('names no repository or homepage of its own: the root package.json is the one place', async () => {
    const pkg = await manifest();
    expect(pkg.name).toBe(name);
    expect(pkg).not.toHaveProperty('repository');
    expect(pkg).not.toHaveProperty('homepage');
  });

  it('ships its docs, and every relative link of its README is one of them', async () => {
    const pkg = await manifest();
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'docs', 'README.md']));
    const readme = await readFile(join(root, dir, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1] ?? '');
    const relative = links.filter((l) => !/^[a-z]+:/.test(l)).map((l) => l.split('#')[0]);
    expect(relative.length).toBeGreaterThan(0);
    for (const link of relative) expect(docs.map((d) => `docs/${d}`)).toContain(link);
    for (const doc of docs) await expect(readFile(join(root, 'docs', doc))).resolves.toBeTruthy();
  });

  it('never says `npm run` in its README: the bin is its own name', async () => {
    const readme = await readFile(join(root, dir, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/npm run (server|updater)/);
  });
});

describe('verified-updater', () => {
  it('bundles everything: no runtime dependencies, the bin is the CLI launcher', async () => {
    const pkg = JSON.parse(
      await readFile(join(root, 'packages/updater/package.json'), 'utf8'),
    ) as Manifest;
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.bin).toEqual({ 'verified-updater': 'dist/updater.cjs' });
  });
});
