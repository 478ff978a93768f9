/**
 * `verified-updater-server/playwright`: Playwright fixtures that start a fresh companion server
 * per test (`server`) or one per worker (`workerServer`) and close it afterwards (its temporary
 * data directory is removed). Both read the one option `serverOptions`, so a `test.use` can
 * never configure one of them and leave the other on the defaults. It is a worker option, so it
 * is set at the top of a file or in a project's `use` (Playwright refuses it in a describe).
 * `redirectCapture` answers the OAuth redirect in the page, where nothing listens
 * (docs/OAUTH.md §Login page). Lazy, like every Playwright fixture: a test that does not name a
 * fixture starts no server. `@playwright/test` is an optional peer dependency: only this entry
 * imports it (docs/SERVER.md §As a package).
 * @example
 *   import { test, expect, authorizeUrl } from 'verified-updater-server/playwright';
 *   test.use({ serverOptions: { config: './qa-server.json' } });
 *   test('signs in', async ({ page, server, redirectCapture }) => {
 *     await page.goto(authorizeUrl(server));
 *   });
 */
import {
  test as base,
  expect,
  type Fixtures,
  type PlaywrightTestArgs,
  type PlaywrightTestOptions,
  type PlaywrightWorkerArgs,
  type PlaywrightWorkerOptions,
} from '@playwright/test';
import type { ServerOptions } from '../../../server/src/compose/options.js';
import { startServer, type RunningServer } from '../../../server/src/compose/start-server.js';
import { QA_REDIRECT_URI } from './oauth-helpers.js';

/** What the fixtures start with unless overridden: the dev API on, the chain simulator off. */
export const QA_SERVER_DEFAULTS: Partial<ServerOptions> = { dev: true, simulate: false };

/** The redirect the browser was sent to, answered in the page by `redirectCapture`. */
export interface RedirectCapture {
  /** The redirect URI it answers (default: the one registered for `qa-web`). */
  readonly redirectUri: string;
  /** Every redirect it answered, oldest first. */
  readonly seen: readonly URL[];
  /** The next redirect (or the first one not yet taken), with `code`, `state` or `error`. */
  next(): Promise<URL>;
}

export interface ServerFixtures {
  /** A fresh server for this test, started with `serverOptions`. */
  server: RunningServer;
  /** Answers requests to `redirectCaptureUri` in `page` and records them. */
  redirectCapture: RedirectCapture;
  /** The redirect URI `redirectCapture` answers; set with `test.use`. */
  redirectCaptureUri: string;
}

export interface ServerWorkerFixtures {
  /**
   * Options of both servers, `server` and `workerServer`, over QA_SERVER_DEFAULTS; set with
   * `test.use`. A worker option, so that the per-worker server can read it too.
   */
  serverOptions: Partial<ServerOptions>;
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
export const serverFixtures: Fixtures<
  ServerFixtures,
  ServerWorkerFixtures,
  PlaywrightTestArgs & PlaywrightTestOptions,
  PlaywrightWorkerArgs & PlaywrightWorkerOptions
> = {
  serverOptions: [{}, { option: true, scope: 'worker' }],
  server: async ({ serverOptions }, use) => serve(serverOptions, use),
  workerServer: [async ({ serverOptions }, use) => serve(serverOptions, use), { scope: 'worker' }],
  redirectCaptureUri: [QA_REDIRECT_URI, { option: true }],
  redirectCapture: async ({ page, redirectCaptureUri }, use) => {
    const seen: URL[] = [];
    let taken = 0;
    let wake: (() => void) | undefined;
    const prefix = redirectCaptureUri.split(/[?#]/)[0] ?? redirectCaptureUri;
    await page.route(
      (url) => url.href.startsWith(prefix),
      async (route) => {
        seen.push(new URL(route.request().url()));
        wake?.();
        await route.fulfill({
          contentType: 'text/html',
          body: '<!doctype html><title>Redirect captured</title><h1>Redirect captured</h1>',
        });
      },
    );
    await use({
      redirectUri: redirectCaptureUri,
      seen,
      // Bounded by the test's own timeout: it waits for an event, it does not sleep.
      next: async () => {
        while (seen.length <= taken) await new Promise<void>((resolve) => (wake = resolve));
        const url = seen[taken];
        taken += 1;
        if (url === undefined) throw new Error('redirectCapture: no redirect');
        return url;
      },
    });
  },
};

/** Playwright's `test` with `server`, `workerServer` and `redirectCapture`. */
export const test = base.extend<ServerFixtures, ServerWorkerFixtures>(serverFixtures);
export { expect };
export {
  authorizeUrl,
  redeemCode,
  QA_REDIRECT_URI,
  type AuthorizeUrlOptions,
} from './oauth-helpers.js';
export type { RunningServer, ServerOptions };
