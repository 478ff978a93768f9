/**
 * The desktop app's one seam to the companion server (docs/DESKTOP.md §Decisions, "First run"): the
 * embedded demo registry is the server started in-process on loopback. ESLint allows an
 * import of `server/` from src/main in this file only (eslint.config.mjs, desktop boundary).
 */
import { startServer } from '#server/compose/start-server.js';
import type { DemoServer } from './first-run.js';

/**
 * Starts the demo registry on 127.0.0.1 (any free port, dev routes off). `dataDir` persists:
 * the demo node key and its releases survive restarts, so the pinned key and the accepted
 * version stay consistent across runs.
 */
export function startDemoServer(dataDir: string): Promise<DemoServer> {
  return startServer({ host: '127.0.0.1', port: 0, dev: false, dataDir });
}
