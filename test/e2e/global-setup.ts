// Builds the renderer, the web window's bridge and the CLI (for `updater serve`), and the
// preload for the Electron smoke test, once before the e2e run.
import { buildApp } from '#scripts/build-app.mjs';
import { buildCli } from '#scripts/build-cli.mjs';

export default async function globalSetup(): Promise<void> {
  await buildApp({ only: ['preload', 'renderer', 'web'] });
  await buildCli();
}
