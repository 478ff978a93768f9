/**
 * Electron smoke test through Playwright's `_electron`: launches the built app with the real
 * Electron runtime and checks the window comes up with the demo registry wired. Runs only where
 * the runtime is installed (node_modules/electron/path.txt and dist/); elsewhere it is reported
 * as skipped with the reason. We never `require('electron')` here: in Electron 42 that starts a
 * download when the runtime is missing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { buildApp } from '#scripts/build-app.mjs';
import { electronBinary } from '#scripts/start.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
// Found as `npm start` finds it (path.txt, or ELECTRON_OVERRIDE_DIST_PATH); never downloads.
const runtime = electronBinary();

test('Electron smoke: the app starts, shows its window and wires the demo registry', async () => {
  test.skip(
    runtime === null,
    'Electron runtime not installed (node_modules/electron/dist is absent; it downloads on first `npm start` with internet)',
  );
  await buildApp();
  const userData = await mkdtemp(join(tmpdir(), 'electron-smoke-'));
  const app = await electron.launch({
    executablePath: runtime ?? '',
    // The app directory, as `npm start` does: Electron reads package.json "main" and "name".
    args: [ROOT, `--user-data-dir=${userData}`, '--no-sandbox'],
  });
  try {
    const window = await app.firstWindow();
    await expect(window.locator('#registry')).toHaveText('Demo registry', { timeout: 20_000 });
    // Sandboxed, isolated, no Node integration: the page sees no Node globals at all.
    const globals = await window.evaluate(() => ({
      require: typeof (globalThis as Record<string, unknown>)['require'],
      process: typeof (globalThis as Record<string, unknown>)['process'],
    }));
    expect(globals).toEqual({ require: 'undefined', process: 'undefined' });
    // The page has no Node and no ipcRenderer: only the named methods of the preload.
    expect(
      await window.evaluate(() =>
        Object.keys((window as unknown as { updater: object }).updater).sort(),
      ),
    ).toEqual([
      'cancel',
      'checkNow',
      'getActivity',
      'getSettings',
      'getStatus',
      'onStatus',
      'openLog',
      'rollBack',
      'saveSettings',
      'setPaused',
      'verify',
    ]);
  } finally {
    await app.close();
    await rm(userData, { recursive: true, force: true });
  }
});
