/**
 * `npm start` (scripts/start.mjs) must start the app the way Electron expects: `electron <dir>`
 * reads <dir>/package.json, whose "main" names the main bundle and whose "name" gives the app
 * its own userData directory (and so its own single-instance lock). Launching the bundle file
 * itself runs it as a nameless "Electron" app sharing ~/.config/Electron with every other one.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../scripts/build-app.mjs';
import { launchArgs } from '../../../scripts/start.mjs';

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
