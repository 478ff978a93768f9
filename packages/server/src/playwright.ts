/**
 * `verified-updater-server/playwright`: Playwright fixtures that start a fresh companion server
 * per test (`server`) or one per worker (`workerServer`) and close it afterwards (its temporary
 * data directory is removed). Lazy, like every Playwright fixture: a test that does not name
 * the fixture starts no server. `@playwright/test` is an optional peer dependency: only this
 * entry imports it (docs/SERVER.md §As a package).
 * @example
 *   import { test, expect } from 'verified-updater-server/playwright';
 *   test.use({ serverOptions: { config: './qa-server.json' } });
 *   test('signs in', async ({ page, server }) => {
 *     await page.goto(`${server.url}/api/oauth/authorize?...`);
 *   });
 */
import { test as base, expect, type Fixtures } from '@playwright/test';
import type { ServerOptions } from '../../../server/src/compose/options.js';
import { startServer, type RunningServer } from '../../../server/src/compose/start-server.js';

/** What the fixtures start with unless overridden: the dev API on, the chain simulator off. */
export const QA_SERVER_DEFAULTS: Partial<ServerOptions> = { dev: true, simulate: false };

export interface ServerFixtures {
  /** Options of the per-test server, over QA_SERVER_DEFAULTS; set with `test.use`. */
  serverOptions: Partial<ServerOptions>;
  /** A fresh server for this test. */
  server: RunningServer;
}

export interface ServerWorkerFixtures {
  /** Options of the per-worker server, over QA_SERVER_DEFAULTS; set with `test.use`. */
  workerServerOptions: Partial<ServerOptions>;
  /** One server shared by the tests of a worker; call `workerServer.reset()` where needed. */
  workerServer: RunningServer;
}

async function serve(
  options: Partial<ServerOptions>,
  use: (server: RunningServer) => Promise<void>,
): Promise<void> {
  const server = await startServer({ ...QA_SERVER_DEFAULTS, ...options });
  try {
    await use(server);
  } finally {
    await server.close();
  }
}

/** The fixtures, for `base.extend(serverFixtures)` on a test type of your own. */
export const serverFixtures: Fixtures<ServerFixtures, ServerWorkerFixtures> = {
  serverOptions: [{}, { option: true }],
  server: async ({ serverOptions }, use) => serve(serverOptions, use),
  workerServerOptions: [{}, { option: true, scope: 'worker' }],
  workerServer: [
    async ({ workerServerOptions }, use) => serve(workerServerOptions, use),
    { scope: 'worker' },
  ],
};

/** Playwright's `test` with `server` and `workerServer`. */
export const test = base.extend<ServerFixtures, ServerWorkerFixtures>(serverFixtures);
export { expect };
export type { RunningServer, ServerOptions };
