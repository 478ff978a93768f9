// Builds the renderer (and preload, for the Electron smoke test) once before the e2e run.
import { buildApp } from '../../scripts/build-app.mjs';

export default async function globalSetup(): Promise<void> {
  await buildApp({ only: ['preload', 'renderer'] });
}
