/**
 * Leaving the demo registry from the settings screen, in the web window against `updater
 * serve` itself (docs/DESKTOP.md "Settings"): serve starts on the embedded demo; the user
 * enters a real registry's address, key and machine key; Save restarts the core on it (the
 * badge names it) and Check now installs that registry's release.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { startServeProcess, type ServeProcess } from '#test/serve-process.js';
import { saveScreenshot } from './screenshots.js';

let registry: RunningServer;
let serve: ServeProcess;
let dataDir: string;

test.beforeEach(async () => {
  registry = await startServer({ dev: true, simulate: false });
  dataDir = await mkdtemp(join(tmpdir(), 'settings-web-e2e-'));
  await registry.publish({
    registry_version: '3.0.0',
    artifacts: [{ name: 'app.bin', content: randomBytes(64 * 1024) }],
  });
  // No registry flags: serve runs the demo registry, as a first start does.
  serve = await startServeProcess(['--data-dir', dataDir]);
});

test.afterEach(async () => {
  expect(await serve.stop()).toBe(0);
  await registry.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('the settings screen leaves the demo registry: saved, restarted on it, updates from it', async ({
  page,
}) => {
  test.setTimeout(60_000);
  const mint = await fetch(`${registry.url}/api/demo-key/mint`, { method: 'POST' });
  const { machine_key: machineKey } = (await mint.json()) as { machine_key: string };
  await page.goto(serve.url);
  await expect(page.locator('#registry')).toHaveText('Demo registry');

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByLabel('Registry address')).toHaveValue('');
  await expect(page.getByLabel('Start at login')).toBeDisabled();
  await expect(page.locator('#start-at-login-hint')).toBeVisible();
  await expect(page.locator('#machine-key-hint')).toContainText('updater serve process only');

  // Without a machine key the demo cannot be left: said next to the field.
  await page.getByLabel('Registry address').fill(registry.url);
  await page.getByLabel('Registry public keys').fill(registry.nodePubkey);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#machine-key-error')).toHaveText(
    'Enter the machine key your registry gave this computer.',
  );

  await page.getByLabel('Machine key').fill(machineKey);
  await page.getByRole('button', { name: 'Save' }).click();
  const host = new URL(registry.url).host;
  // serve keeps the key in its memory only, and says so.
  await expect(page.locator('#settings-result')).toHaveText(
    `Saved. The updater restarted on ${host}. Kept in the memory of this updater serve process only: give it again (UPDATER_MACHINE_KEY) when serve restarts.`,
    { timeout: 20_000 },
  );
  await expect(page.getByLabel('Machine key')).toHaveValue('');
  await expect(page.locator('#machine-key-hint')).toContainText('A key is kept');
  await saveScreenshot(page, 'settings-web-saved');

  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page.locator('#registry')).toHaveText(host);
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#installed-version')).toHaveText('3.0.0', { timeout: 20_000 });
  expect(serve.stderr()).not.toContain(machineKey);
});

test('the settings screen takes a trusted root: a bad one refused by its field, a good one trusted', async ({
  page,
}) => {
  test.setTimeout(60_000);
  const mint = await fetch(`${registry.url}/api/demo-key/mint`, { method: 'POST' });
  const { machine_key: machineKey } = (await mint.json()) as { machine_key: string };
  const rootRes = await fetch(`${registry.url}/api/updates/tuf/1.root.json`, {
    headers: { authorization: `Bearer ${machineKey}` },
  });
  const root = Buffer.from(await rootRes.arrayBuffer());
  await page.goto(serve.url);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('Registry address').fill(registry.url);
  await page.getByLabel('Machine key').fill(machineKey);

  // A root its own keys did not sign: refused next to its field, in plain words.
  const doc = JSON.parse(root.toString('utf8')) as { signatures: unknown[] };
  await page
    .getByLabel('Trusted root (root.json)')
    .fill(JSON.stringify({ ...doc, signatures: [] }));
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#trusted-root-error')).toContainText(
    'This root is not signed by 1 of its own 1 root keys',
  );
  await expect(page.getByLabel('Trusted root (root.json)')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#settings-problem-list')).toContainText('not signed by');

  // The genuine root, picked as a file: no public key needed, trust starts from it.
  await page.getByLabel('Or pick the file').setInputFiles({
    name: 'root.json',
    mimeType: 'application/json',
    buffer: root,
  });
  await expect(page.getByLabel('Trusted root (root.json)')).toHaveValue(root.toString('utf8'));
  await page.getByRole('button', { name: 'Save' }).click();
  const host = new URL(registry.url).host;
  await expect(page.locator('#settings-result')).toContainText(
    `Saved. The updater restarted on ${host}.`,
    { timeout: 20_000 },
  );
  await expect(page.getByLabel('Trusted root (root.json)')).toHaveValue('');
  await expect(page.locator('#trusted-root-hint')).toContainText(
    'A trusted root is kept (version 1',
  );
  await page.getByRole('button', { name: 'Back' }).click();
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#installed-version')).toHaveText('3.0.0', { timeout: 20_000 });

  // The kept root belongs to this registry: leaving it asks to forget the root, by its field.
  await page.getByRole('button', { name: 'Settings' }).click();
  const forget = page.getByLabel('Forget the kept root');
  await expect(forget).toBeVisible();
  await page.getByLabel('Registry address').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#trusted-root-error')).toContainText(
    'tick "Forget the kept root" to use the demo registry',
  );
  await forget.check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#settings-result')).toContainText(
    'Saved. The updater restarted on the demo registry.',
    { timeout: 20_000 },
  );
  await expect(forget).toBeHidden();
  await expect(page.locator('#trusted-root-hint')).not.toContainText('is kept');
});
