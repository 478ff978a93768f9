/**
 * `verified-updater-server/vitest`: a fresh companion server per test file or per test, for
 * vitest. `useServer()` registers the hooks and returns the handle (usable inside tests and
 * hooks); `test` is vitest's `test` with a per-test `server` fixture. The server is closed
 * afterwards and its temporary data directory removed. `vitest` is an optional peer dependency:
 * only this entry imports it (docs/SERVER.md §As a package).
 * @example
 *   import { useServer } from 'verified-updater-server/vitest';
 *   const server = useServer({ config: './qa-server.json' }); // one per file
 *   it('serves a manifest', async () => {
 *     const res = await fetch(`${server.url}/api/updates/manifest`, { headers });
 *   });
 */
import { afterAll, afterEach, beforeAll, beforeEach, test as base } from 'vitest';
import type { ServerOptions } from '../../../server/src/compose/options.js';
import { startServer, type RunningServer } from '../../../server/src/compose/start-server.js';

/** What the helpers start with unless overridden: the dev API on, the chain simulator off. */
export const QA_SERVER_DEFAULTS: Partial<ServerOptions> = { dev: true, simulate: false };

export interface UseServerOptions {
  /** `file` (default): one server for the file's tests; `test`: a fresh one for each test. */
  readonly per?: 'file' | 'test';
}

/**
 * Starts a server before the file's tests (or before each test) and closes it after. Returns a
 * handle that forwards to the running server; reading it outside a test or hook throws.
 */
export function useServer(
  options: Partial<ServerOptions> = {},
  { per = 'file' }: UseServerOptions = {},
): RunningServer {
  let current: RunningServer | undefined;
  const start = async (): Promise<void> => {
    current = await startServer({ ...QA_SERVER_DEFAULTS, ...options });
  };
  const stop = async (): Promise<void> => {
    const server = current;
    current = undefined;
    await server?.close();
  };
  if (per === 'test') {
    beforeEach(start);
    afterEach(stop);
  } else {
    beforeAll(start);
    afterAll(stop);
  }
  return new Proxy({} as RunningServer, {
    get(_target, name) {
      if (current === undefined) {
        throw new Error('useServer: the server runs only inside tests and hooks of this file');
      }
      const value: unknown = Reflect.get(current, name);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(current)
        : value;
    },
  });
}

export interface ServerTestContext {
  /** Options of the per-test server, over QA_SERVER_DEFAULTS; set with `test.scoped`. */
  serverOptions: Partial<ServerOptions>;
  /** A fresh server for this test. */
  server: RunningServer;
}

/** vitest's `test` with a fresh `server` per test that names it. */
export const test = base.extend<ServerTestContext>({
  serverOptions: {},
  server: async ({ serverOptions }, use) => {
    const server = await startServer({ ...QA_SERVER_DEFAULTS, ...serverOptions });
    try {
      await use(server);
    } finally {
      await server.close();
    }
  },
});
export type { RunningServer, ServerOptions };
