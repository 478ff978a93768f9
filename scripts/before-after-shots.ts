/**
 * The "before" half of docs/screenshots/BEFORE-AFTER.md: drives the window of an older checkout
 * (the one before the first-hour work, 0565ac7) through the situations of items 1-8 and saves
 * docs/screenshots/before-after/item-N-before.png. The "after" half is the e2e
 * test/e2e/before-after.spec.ts; both take their releases, faults, ranking and throttled link
 * from test/helpers/first-hour-kit.ts.
 *
 *   git worktree add --detach /tmp/before 0565ac7 && ln -s "$PWD/node_modules" /tmp/before/
 *   (cd /tmp/before && node --input-type=module -e "
 *     await (await import('./scripts/build-app.mjs')).buildApp({ only: ['renderer', 'web'] });
 *     await (await import('./scripts/build-cli.mjs')).buildCli()")
 *   node --import tsx scripts/before-after-shots.ts /tmp/before [ITEM...]
 *
 * It builds and fetches nothing: the older checkout's renderer and CLI bundle must be built
 * there first (above). It runs that checkout's own e2e harness (its companion server, core and
 * controller) and its own `updater serve`, in Chromium as the e2e suite finds it.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import {
  ARTIFACT_ROUTE,
  NARROW,
  NARROW_TALL,
  WIDE,
  rankingCard,
  resumeAfterOutage,
  startOutageScene,
  seedRanking,
  settingsCard,
  shoot,
  statusCard,
  textArtifact,
  twoArtifacts,
  type ChainSeeder,
} from '#test/first-hour-kit.js';
import { findChromium } from './test-tools.mjs';

/** What this script uses of the older checkout's e2e harness (test/helpers/test-bridge.ts). */
interface OldHarness {
  readonly server: {
    readonly url: string;
    readonly nodePubkey: string;
    readonly chain: ChainSeeder;
    publish(release: unknown): Promise<unknown>;
    readonly faults: { add(fault: Record<string, unknown>): void };
  };
  readonly rendererUrl: string;
  attach(page: Page): Promise<void>;
  close(): Promise<void>;
}
interface OldTree {
  startHarness(options?: { limits?: Record<string, number> }): Promise<OldHarness>;
  startServer(
    options: Record<string, unknown>,
  ): Promise<OldHarness['server'] & { close(): Promise<void> }>;
  readonly serveBundle: string;
}

async function loadTree(tree: string): Promise<OldTree> {
  const need = ['dist/app/renderer/index.html', 'dist/app/web/web.js', 'dist/cli/updater.mjs'];
  const missing = need.filter((path) => !existsSync(join(tree, path)));
  if (missing.length > 0)
    throw new Error(`${tree} is not built (${missing.join(', ')}): see this script's header`);
  const bridge = (await import(join(tree, 'test/helpers/test-bridge.ts'))) as Pick<
    OldTree,
    'startHarness'
  >;
  const server = (await import(join(tree, 'server/src/start-server.ts'))) as Pick<
    OldTree,
    'startServer'
  >;
  return {
    startHarness: bridge.startHarness,
    startServer: server.startServer,
    serveBundle: join(tree, 'dist/cli/updater.mjs'),
  };
}

type Item = (tree: OldTree, page: Page) => Promise<void>;

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Runs `steps` on a harness of the older tree with the window open, and closes it after. */
async function withWindow(
  tree: OldTree,
  page: Page,
  limits: Record<string, number> | undefined,
  steps: (h: OldHarness) => Promise<void>,
): Promise<void> {
  const h = await tree.startHarness(limits === undefined ? {} : { limits });
  try {
    await h.attach(page);
    await page.goto(h.rendererUrl);
    await steps(h);
  } finally {
    await h.close();
  }
}

const checkNow = (page: Page) => page.getByRole('button', { name: 'Check now' });

async function installVersion(h: OldHarness, page: Page, version: string): Promise<void> {
  await h.server.publish({ registry_version: version, artifacts: textArtifact(`${version}\n`) });
  await checkNow(page).click();
  await page.locator('#installed-version').filter({ hasText: version }).waitFor();
}

const ITEMS: Record<number, Item> = {
  // 1: a Cancel the user chose.
  1: (tree, page) =>
    withWindow(tree, page, { parallel: 1 }, async (h) => {
      await h.server.publish({ registry_version: '3.0.0', artifacts: twoArtifacts() });
      h.server.faults.add({ route: ARTIFACT_ROUTE, delay_ms: 300 });
      h.server.faults.add({ route: ARTIFACT_ROUTE, delay_ms: 5_000 });
      await checkNow(page).click();
      await page.locator('#progress-row').waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.locator('#progress-row').waitFor({ state: 'hidden' });
      await sleep(1_000);
      await shoot(statusCard(page), 1, 'before');
    }),
  // 2: speed and time left after a resume over the throttled link (its own `updater serve`).
  2: async (tree, page) => {
    const { link, serve, stop } = await startOutageScene(
      (options) => tree.startServer(options),
      'before',
      tree.serveBundle,
    );
    try {
      await page.goto(serve.url);
      const by = await resumeAfterOutage(page, link);
      process.stdout.write(`item 2: resumed by ${by}\n`);
      await shoot(statusCard(page), 2, 'before');
    } finally {
      await stop();
    }
  },
  // 3: Roll back (window.confirm), then Check now.
  3: (tree, page) =>
    withWindow(tree, page, undefined, async (h) => {
      await installVersion(h, page, '2.0.0');
      await installVersion(h, page, '3.0.0');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByText('More actions').click();
      await page.getByRole('button', { name: 'Roll back' }).click();
      await page.locator('#installed-version').filter({ hasText: '2.0.0' }).waitFor();
      await checkNow(page).click();
      await sleep(3_000);
      await shoot(statusCard(page), 3, 'before');
    }),
  // 4: Check now by keyboard: where is focus once it is done?
  4: (tree, page) =>
    withWindow(tree, page, undefined, async (h) => {
      await h.server.publish({ registry_version: '1.0.0', artifacts: textArtifact('one\n') });
      h.server.faults.add({ route: ARTIFACT_ROUTE, delay_ms: 1_000 });
      await checkNow(page).focus();
      await page.keyboard.press('Enter');
      await page.locator('#installed-version').filter({ hasText: '1.0.0' }).waitFor();
      await sleep(500);
      await shoot(statusCard(page), 4, 'before');
    }),
  // 5: the ranking at 380 px.
  5: async (tree, page) => {
    await page.setViewportSize(NARROW);
    await withWindow(tree, page, undefined, async (h) => {
      seedRanking(h.server.chain);
      await page.reload();
      await page.locator('#activity-list li').nth(9).waitFor();
      await shoot(rankingCard(page), 5, 'before');
    });
  },
  // 6: a download cut by an outage.
  6: (tree, page) =>
    withWindow(tree, page, { parallel: 1, retries: 0 }, async (h) => {
      await h.server.publish({ registry_version: '3.0.0', artifacts: twoArtifacts() });
      h.server.faults.add({ route: ARTIFACT_ROUTE, delay_ms: 200 });
      h.server.faults.add({ route: ARTIFACT_ROUTE, truncate_bytes: 200_000, delay_ms: 1_500 });
      await checkNow(page).click();
      await page.locator('#error').waitFor();
      await sleep(500);
      await shoot(statusCard(page), 6, 'before');
    }),
  // 7: the settings at 380 px after a Save with a wrong address.
  7: async (tree, page) => {
    await page.setViewportSize(NARROW_TALL);
    await withWindow(tree, page, undefined, async () => {
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByLabel('Registry address').fill('ftp://registry');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('#settings-problems').waitFor();
      await shoot(settingsCard(page), 7, 'before');
    });
  },
  // 8: a new version (no policy, no notes, no offer existed).
  8: (tree, page) =>
    withWindow(tree, page, undefined, async (h) => {
      await installVersion(h, page, '1.0.0');
      await h.server.publish({ registry_version: '2.0.0', artifacts: twoArtifacts() });
      await checkNow(page).click();
      await page.locator('#installed-version').filter({ hasText: '2.0.0' }).waitFor();
      await sleep(500);
      await shoot(statusCard(page), 8, 'before');
    }),
};

async function main(): Promise<void> {
  const [treeArg, ...items] = process.argv.slice(2);
  if (treeArg === undefined) throw new Error('usage: before-after-shots.ts BEFORE_TREE [ITEM...]');
  const tree = await loadTree(resolve(treeArg));
  const found = findChromium();
  if (found === undefined || found.broken === true) throw new Error('no Chromium found');
  const browser: Browser = await chromium.launch({
    executablePath: found.path,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const chosen = items.length > 0 ? items.map(Number) : Object.keys(ITEMS).map(Number);
    for (const n of chosen) {
      const item = ITEMS[n];
      if (item === undefined) throw new Error(`no item ${n}`);
      const context = await browser.newContext({
        viewport: WIDE,
        deviceScaleFactor: 1,
        locale: 'en-US',
        timezoneId: 'UTC',
      });
      try {
        await item(tree, await context.newPage());
        process.stdout.write(`item ${n}: saved\n`);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
}

await main();
