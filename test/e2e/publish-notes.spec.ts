/**
 * Release notes end to end (docs/DESKTOP.md "Update policy", docs/PROTOCOL.md §2.2 `notes`):
 * `publish --notes FILE` of the real server CLI signs Markdown with the release into a data
 * directory, the server CLI serves it, and the window under "ask first" offers the version with
 * the notes as text only: a script tag stays visible text and never runs, a link keeps its words
 * and goes nowhere; Install now, Later and Skip this version are offered and nothing is
 * installed. Focus never lands on <body>; axe-core finds nothing.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { runCli, spawnCli, type CliServer } from '#test/server-harness.js';
import { startHarness, type Harness } from '#test/test-bridge.js';
import { expectNoAxeViolations } from './axe.js';
import { expectFocusNeverOnBody, watchFocus } from './viewports.js';

let work = '';
let registry: CliServer | undefined;
let harness: Harness | undefined;

test.afterEach(async () => {
  await harness?.close();
  await registry?.stop('SIGTERM');
  if (work !== '') await rm(work, { recursive: true, force: true });
  harness = undefined;
  registry = undefined;
  work = '';
});

const NOTES = [
  '# What is new in 2.0.0',
  '',
  'Sync is **faster**; see [the changelog](https://example.invalid/changelog).',
  '',
  '<script>window.notesRan = true</script>',
  '',
  '- <a href="https://example.invalid/raw">a raw link</a>',
  '- `verify` checks every file',
].join('\n');

/** Publishes 2.0.0 with NOTES into a new data directory through the CLI, then serves it. */
async function publishWithNotes(): Promise<CliServer> {
  work = await mkdtemp(join(tmpdir(), 'publish-notes-e2e-'));
  const folder = join(work, 'release');
  await mkdir(folder);
  await writeFile(join(folder, 'app.bin'), Buffer.alloc(100 * 1024, 3));
  await writeFile(join(work, 'notes.md'), NOTES);
  const dataDir = join(work, 'data');
  const result = await runCli(
    [
      'publish',
      '--data-dir',
      dataDir,
      '--init',
      '--version',
      '2.0.0',
      '--notes',
      join(work, 'notes.md'),
      folder,
    ],
    60_000,
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, registry_version: '2.0.0' });
  return spawnCli(['--port', '0', '--data-dir', dataDir, '--simulate', 'off'], 60_000);
}

test('publish --notes: "ask first" offers 2.0.0 with its notes as text only, nothing runs or navigates', async ({
  page,
}) => {
  test.setTimeout(120_000);
  registry = await publishWithNotes();
  harness = await startHarness({
    baseUrl: registry.first.url,
    pinnedKey: registry.first.node_pubkey,
  });
  harness.settings.set('updatePolicy', 'ask');
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await watchFocus(page);
  await harness.attach(page);
  await page.goto(harness.rendererUrl);
  const address = page.url();

  const checkNow = page.getByRole('button', { name: 'Check now' });
  await checkNow.click();
  await expect(page.locator('#offer')).toBeVisible();
  await expect(page.locator('#offer-title')).toHaveText(
    'Version 2.0.0 is verified and ready to install: 100.0 KiB to download.',
  );
  const notes = page.getByRole('region', { name: 'Release notes' });
  await expect(notes).toContainText('What is new in 2.0.0');
  await expect(notes).toContainText('Sync is faster; see the changelog.');
  await expect(notes.locator('strong')).toHaveText(['What is new in 2.0.0', 'faster']);
  // The script tag is shown as the text it is; the raw anchor too; neither is an element.
  await expect(notes).toContainText('<script>window.notesRan = true</script>');
  await expect(notes).toContainText('<a href="https://example.invalid/raw">a raw link</a>');
  await expect(notes.locator('script, a, img, iframe, [href], [src], [style]')).toHaveCount(0);
  await expect(notes).not.toContainText('https://example.invalid/changelog');
  expect(await page.evaluate(() => 'notesRan' in window)).toBe(false);
  // The link's words go nowhere.
  await notes.getByText('the changelog').click();
  expect(page.url()).toBe(address);

  await expect(page.getByRole('button', { name: 'Install now' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Skip this version' })).toBeVisible();
  const later = page.getByRole('button', { name: 'Later' });
  await expect(later).toBeVisible();
  await expectNoAxeViolations(page, 'offer with published notes');

  await later.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#offer')).toBeHidden();
  await expect(page.locator('#action-result')).toContainText(
    '2.0.0 will be offered again at the next check.',
  );
  await expect(checkNow).toBeFocused();
  await expect(page.locator('#installed-version')).toHaveText('none yet');
  expect(dialogs).toEqual([]);
  expect(page.url()).toBe(address);
  await expectFocusNeverOnBody(page);
});
