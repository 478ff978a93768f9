/**
 * The web window in Debian's Chromium against `updater serve` itself (the bundled CLI, not
 * the test bridge): the real core on its own schedule, the real companion server, the bridge
 * over HTTP and server-sent events, and the security rules of docs/SECURITY.md §6.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { CONTENT_SECURITY_POLICY } from '#app/app-protocol.js';
import type { ActivityResponse } from '#protocol/activity.js';
import { rawRequest } from '#test/raw-http.js';
import { startServeProcess, type ServeProcess } from '#test/serve-process.js';
import { saveScreenshot, SCREENSHOT_DIR } from './screenshots.js';

let registry: RunningServer;
let serve: ServeProcess;
let dataDir: string;

test.beforeEach(async () => {
  registry = await startServer({ dev: true, simulate: false });
  dataDir = await mkdtemp(join(tmpdir(), 'web-window-e2e-'));
  const mint = await fetch(`${registry.url}/api/demo-key/mint`, { method: 'POST' });
  const { machine_key: machineKey } = (await mint.json()) as { machine_key: string };
  // The release is there before serve starts: its own schedule (first check about 5 s after
  // start) installs it, so the page watches an update nobody clicked.
  await registry.publish({
    registry_version: '2.1.0',
    artifacts: [
      { name: 'app/core.bin', content: randomBytes(256 * 1024) },
      { name: 'app/assets.bin', content: randomBytes(512 * 1024) },
    ],
  });
  // The two artifact requests answer at different times: the bar must show a partial state.
  registry.faults.add({ route: 'GET /api/updates/artifacts/:sha256', delay_ms: 300 });
  registry.faults.add({ route: 'GET /api/updates/artifacts/:sha256', delay_ms: 2_500 });
  serve = await startServeProcess(
    ['--base-url', registry.url, '--pubkey', registry.nodePubkey, '--data-dir', dataDir],
    { UPDATER_MACHINE_KEY: machineKey },
  );
});

test.afterEach(async () => {
  expect(await serve.stop()).toBe(0);
  await registry.close();
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * Records, from the first paint on, every state of the progress bar and every sentence of the
 * status line: the assertions then read the whole run, however fast the download was.
 */
async function watchProgress(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: { visible: boolean; value: number; max: number }[] = [];
    const lines: string[] = [];
    const w = window as unknown as { progressSeen: typeof seen; statusLines: string[] };
    w.progressSeen = seen;
    w.statusLines = lines;
    document.addEventListener('DOMContentLoaded', () => {
      const row = document.getElementById('progress-row') as HTMLElement;
      const bar = document.getElementById('progress') as HTMLProgressElement;
      const line = document.getElementById('status-line') as HTMLElement;
      if (line.textContent) lines.push(line.textContent);
      new MutationObserver(() => {
        seen.push({ visible: !row.hidden, value: bar.value, max: bar.max });
      }).observe(row, { attributes: true, subtree: true });
      new MutationObserver(() => {
        const text = line.textContent ?? '';
        if (lines.at(-1) !== text) lines.push(text);
      }).observe(line, { childList: true, characterData: true, subtree: true });
    });
  });
}

test('the status follows a real update with progress, on serve’s own schedule', async ({
  page,
}) => {
  // Waits for serve's first scheduled check (5 s after start plus up to 10 s of jitter).
  test.setTimeout(60_000);
  await watchProgress(page);
  const response = await page.goto(serve.url);
  // The token was exchanged for the cookie and dropped from the address.
  expect(page.url()).toBe(`${serve.origin}/`);
  expect(response?.status()).toBe(200);
  await expect(page.locator('#registry')).toHaveText(new URL(registry.url).host);

  // The status line names the version it downloads (docs/DESKTOP.md "Updates"). The second
  // artifact answers 2.5 s late (the dev fault above), so the bar is on screen for a while.
  await expect(page.locator('#progress-row')).toBeVisible({ timeout: 25_000 });
  await saveScreenshot(page, 'web-window-downloading');
  await expect(page.locator('#installed-version')).toHaveText('2.1.0', { timeout: 25_000 });
  await expect(page.locator('#status-line')).toHaveText('You’re up to date (2.1.0).');
  await expect(page.locator('#progress-row')).toBeHidden();

  // The whole run, in order, as the page showed it (not only what a poll happened to catch).
  const recorded = await page.evaluate(() => ({
    lines: (window as unknown as { statusLines: string[] }).statusLines,
    seen: (
      window as unknown as { progressSeen: { visible: boolean; value: number; max: number }[] }
    ).progressSeen,
  }));
  // Checking and installing may pass between two paints; the rest is the story of the run.
  const brief = new Set(['Checking for updates…', 'Installing version 2.1.0…']);
  expect(recorded.lines.filter((line) => !brief.has(line))).toEqual([
    'Nothing installed yet.',
    'Downloading version 2.1.0…',
    'You’re up to date (2.1.0).',
  ]);
  const total = 256 * 1024 + 512 * 1024;
  const seen = recorded.seen;
  expect(seen.filter((s) => s.visible && s.value > 0 && s.value < s.max).length).toBeGreaterThan(0);
  expect(seen.filter((s) => s.visible).every((s) => s.max === total)).toBe(true);

  // A second Check now goes through the HTTP bridge and finds nothing new.
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#last-check')).toHaveText('just now');
  await expect(page.locator('#installed-version')).toHaveText('2.1.0');
  await expect(page.locator('#status-line')).toHaveText('You’re up to date (2.1.0).');
});

test('the widget matches the server’s ranking', async ({ page }) => {
  const unit = registry.chain.unitNow() - 1;
  for (let i = 0; i < 12; i += 1) {
    const id = `web-${i}`;
    registry.chain.addMachine({ id, name: `Web machine ${i}`, visibility: 'public' });
    registry.chain.addTransitions({ machine_id: id, count: ((i * 7) % 12) + 1, unit });
  }
  registry.chain.addMachine({ id: 'hidden', name: 'Private machine', visibility: 'private' });
  registry.chain.addTransitions({ machine_id: 'hidden', count: 900, unit });
  await page.goto(serve.url);
  await expect(page.locator('#activity-list li')).toHaveCount(10);
  const ranking = (await (
    await fetch(`${registry.url}/api/chain/active?limit=10`)
  ).json()) as ActivityResponse;
  const rows = await page.locator('#activity-list li').evaluateAll((items) =>
    items.map((li) => ({
      name: li.querySelector('.name')?.textContent ?? '',
      count: Number((li.querySelector('.count')?.textContent ?? '').replace(/\D/g, '')),
    })),
  );
  expect(rows).toEqual(ranking.machines.map((m) => ({ name: m.name, count: m.transitions })));
  // Installed, for the README's picture of the window.
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.locator('#installed-version')).toHaveText('2.1.0');
  await saveScreenshot(page, 'web-window');
  if (process.env['UPDATE_SCREENSHOT'] === '1') {
    await page.screenshot({ path: join(SCREENSHOT_DIR, '..', '..', 'docs', 'web-window.png') });
  }
});

test('refused: no token, a foreign Host, a foreign Origin', async ({ page }) => {
  // Without the token: the page, a bridge call, the event stream.
  expect((await rawRequest(serve.port, {})).code).toBe('UNAUTHORIZED');
  const noCookie = await rawRequest(serve.port, {
    method: 'POST',
    path: '/api/bridge/checkNow',
    headers: { origin: serve.origin, 'content-type': 'application/json' },
    body: '{"args":[]}',
  });
  expect([noCookie.status, noCookie.code]).toEqual([401, 'UNAUTHORIZED']);
  expect((await rawRequest(serve.port, { path: '/api/events' })).code).toBe('UNAUTHORIZED');
  const fresh = await page.context().browser()?.newPage();
  const bare = await fresh?.goto(`${serve.origin}/`);
  expect(bare?.status()).toBe(401);
  await fresh?.close();

  // The browser's own session, to show that even a valid cookie does not pass the checks.
  await page.goto(serve.url);
  const cookies = await page.context().cookies(serve.origin);
  const session = cookies.find((c) => c.name === `updater-session-${serve.port}`);
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  const cookie = `${session?.name}=${session?.value}`;
  const post = (headers: Record<string, string>) =>
    rawRequest(serve.port, {
      method: 'POST',
      path: '/api/bridge/checkNow',
      headers: { cookie, 'content-type': 'application/json', ...headers },
      body: '{"args":[]}',
    });
  // DNS rebinding: the Host names something else.
  const rebound = await post({ host: `evil.example:${serve.port}`, origin: serve.origin });
  expect([rebound.status, rebound.code]).toEqual([421, 'HOST_REFUSED']);
  // Cross-site: the Origin is another page's.
  const foreign = await post({ origin: 'http://evil.example' });
  expect([foreign.status, foreign.code]).toEqual([403, 'ORIGIN_REFUSED']);
  const own = await post({ origin: serve.origin });
  expect(own.status).toBe(200);

  // A real page on another loopback port (same site, so the Strict cookie does travel) tries
  // to call the bridge and to read it: both refused, and no CORS header lets it read.
  const evil: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>evil</p>');
  });
  await new Promise<void>((done) => evil.listen(0, '127.0.0.1', done));
  try {
    const evilPage = await page.context().newPage();
    await evilPage.goto(`http://127.0.0.1:${(evil.address() as { port: number }).port}/`);
    const outcome = await evilPage.evaluate(async (target) => {
      try {
        const r = await fetch(`${target}/api/bridge/getStatus`, {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json' },
          body: '{"args":[]}',
        });
        return `read ${r.status}`;
      } catch {
        return 'blocked';
      }
    }, serve.origin);
    expect(outcome).toBe('blocked');
    await evilPage.close();
  } finally {
    evil.close();
  }
});

test('the page has the Electron window’s CSP header and reaches nothing but its bridge', async ({
  page,
}) => {
  const response = await page.goto(serve.url);
  expect(response?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  expect(response?.headers()['x-frame-options']).toBe('DENY');
  const outcome = await page.evaluate(async (url) => {
    try {
      await fetch(url);
      return 'allowed';
    } catch {
      return 'blocked';
    }
  }, `${registry.url}/api/chain/active`);
  expect(outcome).toBe('blocked');
  const shape = await page.evaluate(() => {
    const api = (window as unknown as { updater: Record<string, unknown> }).updater;
    return { keys: Object.keys(api).sort(), frozen: Object.isFrozen(api) };
  });
  expect(shape.frozen).toBe(true);
  expect(shape.keys).toContain('getStatus');
  expect(shape.keys).toContain('onStatus');
});
