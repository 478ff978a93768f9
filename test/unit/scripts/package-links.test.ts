/**
 * The packages' `repository` and `homepage` come from the root package.json when packed
 * (scripts/package-links.mjs, docs/RELEASING.md §The npm packages): a public address is copied
 * in with the package's directory, a reserved or missing one leaves the field out with a message,
 * and the package's own package.json is put back after the pack.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKUP, packageLinks, restoreLinks, stampLinks } from '#scripts/package-links.mjs';

const REPO = 'git+https://git.example.org/team/verified-updater.git';
const scriptsDir = resolve(import.meta.dirname, '../../../scripts');

describe('packageLinks', () => {
  it('copies a public repository with the package directory, and a public homepage', () => {
    expect(
      packageLinks(
        {
          repository: { url: REPO.replace('example.org', 'acme.dev') },
          homepage: 'https://acme.dev/',
        },
        'packages/server',
      ),
    ).toEqual({
      links: {
        repository: {
          type: 'git',
          url: 'git+https://git.acme.dev/team/verified-updater.git',
          directory: 'packages/server',
        },
        homepage: 'https://acme.dev/',
      },
      missing: [],
    });
  });

  it('takes the string form of repository too', () => {
    const { links } = packageLinks({ repository: 'https://git.acme.dev/r.git' }, 'packages/x');
    expect(links.repository?.url).toBe('https://git.acme.dev/r.git');
  });

  it.each([
    ['no fields', {}],
    [
      'a .invalid homepage (as the root has today)',
      { homepage: 'https://verified-updater.invalid/' },
    ],
    ['an example.org repository', { repository: { url: REPO } }],
    ['a .test host', { repository: 'https://git.x.test/r.git', homepage: 'https://x.test' }],
    ['localhost', { homepage: 'http://localhost:8080/' }],
    ['not a URL', { repository: 'verified-updater', homepage: 'home' }],
  ])('leaves both out for %s', (_, root) => {
    expect(packageLinks(root, 'packages/server')).toEqual({
      links: {},
      missing: ['repository', 'homepage'],
    });
  });
});

describe('stampLinks and restoreLinks', () => {
  let root: string;
  let pkgDir: string;
  const original = `${JSON.stringify({ name: 'demo', version: '1.0.0', license: 'MIT', type: 'module' }, null, 2)}\n`;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'package-links-'));
    pkgDir = join(root, 'packages', 'demo');
    await mkdir(pkgDir, { recursive: true });
    await writeFile(join(pkgDir, 'package.json'), original);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const rootManifest = (fields: object): Promise<void> =>
    writeFile(join(root, 'package.json'), JSON.stringify({ name: 'root', ...fields }));

  it('writes the links after license and restores the file byte for byte', async () => {
    await rootManifest({ repository: { type: 'git', url: 'https://git.acme.dev/r.git' } });
    const message = stampLinks(pkgDir, root);
    const stamped = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as object;
    expect(Object.keys(stamped)).toEqual(['name', 'version', 'license', 'repository', 'type']);
    expect(stamped).toMatchObject({
      repository: { type: 'git', url: 'https://git.acme.dev/r.git', directory: 'packages/demo' },
    });
    expect(message).toBe(
      'demo: packed without "homepage": the root package.json names no public address for it (docs/RELEASING.md §The npm packages).',
    );
    restoreLinks(pkgDir);
    expect(await readFile(join(pkgDir, 'package.json'), 'utf8')).toBe(original);
    expect(existsSync(join(pkgDir, BACKUP))).toBe(false);
  });

  it('touches nothing and says so when the root names no public address', async () => {
    await rootManifest({ homepage: 'https://verified-updater.invalid/' });
    expect(stampLinks(pkgDir, root)).toBe(
      'demo: packed without "repository" and "homepage": the root package.json names no public address for them (docs/RELEASING.md §The npm packages).',
    );
    expect(await readFile(join(pkgDir, 'package.json'), 'utf8')).toBe(original);
    expect(existsSync(join(pkgDir, BACKUP))).toBe(false);
    restoreLinks(pkgDir);
    expect(await readFile(join(pkgDir, 'package.json'), 'utf8')).toBe(original);
  });

  it('after a pack that died before its postpack, starts again from the original', async () => {
    await rootManifest({ homepage: 'https://acme.dev/', repository: 'https://git.acme.dev/r.git' });
    stampLinks(pkgDir, root);
    stampLinks(pkgDir, root);
    restoreLinks(pkgDir);
    expect(await readFile(join(pkgDir, 'package.json'), 'utf8')).toBe(original);
  });

  it('npm pack carries the root links and leaves the package.json as it was', async () => {
    await mkdir(join(root, 'scripts'));
    copyFileSync(join(scriptsDir, 'package-links.mjs'), join(root, 'scripts', 'package-links.mjs'));
    await rootManifest({ homepage: 'https://acme.dev/', repository: 'https://git.acme.dev/r.git' });
    const manifest = {
      ...(JSON.parse(original) as object),
      files: ['index.js'],
      scripts: {
        prepack: 'node ../../scripts/package-links.mjs stamp',
        postpack: 'node ../../scripts/package-links.mjs restore',
      },
    };
    const before = `${JSON.stringify(manifest, null, 2)}\n`;
    await writeFile(join(pkgDir, 'package.json'), before);
    await writeFile(join(pkgDir, 'index.js'), 'export {};\n');
    const packed = spawnSync('npm', ['pack', '--pack-destination', root, '--silent'], {
      cwd: pkgDir,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    expect(packed.status, packed.stderr).toBe(0);
    const inTarball = execFileSync(
      'tar',
      ['-xzOf', join(root, 'demo-1.0.0.tgz'), 'package/package.json'],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(inTarball)).toMatchObject({
      homepage: 'https://acme.dev/',
      repository: { type: 'git', url: 'https://git.acme.dev/r.git', directory: 'packages/demo' },
    });
    expect(readFileSync(join(pkgDir, 'package.json'), 'utf8')).toBe(before);
  });
});
