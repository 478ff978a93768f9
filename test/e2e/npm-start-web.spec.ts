/**
 * `npm start` where the Electron runtime cannot be had: Electron's mirror points at a closed
 * loopback port (and an empty download cache), so its install script fails; npm start says so
 * in one line, falls back to `updater serve` against the embedded demo registry and prints the
 * web window's address. The page answers there and shows the demo registry's version.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from '@playwright/test';

const ROOT = resolve(import.meta.dirname, '../..');

/** A loopback port with nothing listening (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

test('npm start without a reachable Electron runtime opens the web window on the demo registry', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const home = await mkdtemp(join(tmpdir(), 'npm-start-web-'));
  const port = await closedPort();
  let child: ChildProcess | undefined;
  const lines: string[] = [];
  try {
    child = spawn('npm', ['start', '--', '--no-open'], {
      cwd: ROOT,
      // Its own process group, so the test can stop npm, start.mjs and serve together.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ELECTRON_MIRROR: `http://127.0.0.1:${port}/`,
        electron_config_cache: join(home, 'electron-cache'),
        force_no_cache: 'true',
        // Where the runtime is installed, an empty override hides it: "missing" either way.
        ELECTRON_OVERRIDE_DIST_PATH: join(home, 'no-electron'),
        // serve's data directory follows the tray app's (XDG config home on Linux).
        XDG_CONFIG_HOME: join(home, 'config'),
        DISPLAY: '',
        WAYLAND_DISPLAY: '',
      },
    });
    child.stderr?.resume();
    const url = await new Promise<string>((done, fail) => {
      const reader = createInterface({ input: child!.stdout! });
      reader.on('line', (line) => {
        lines.push(line);
        const match = /^The updater window is at (\S+)$/.exec(line);
        if (match?.[1] !== undefined) done(match[1]);
      });
      child!.once('exit', (code) =>
        fail(new Error(`npm start exited ${code}: ${lines.join('\n')}`)),
      );
    });
    const notice = lines.filter((line) => line.startsWith('The Electron runtime is missing'));
    expect(notice).toHaveLength(1);
    expect(notice[0]).toContain('opening the web window instead');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);

    await page.goto(url);
    await expect(page.locator('#registry')).toHaveText('Demo registry');
    // The demo registry publishes 1.0.0; serve's schedule or Check now installs it.
    await page.getByRole('button', { name: 'Check now' }).click();
    await expect(page.locator('#installed-version')).toHaveText('1.0.0');
    await expect(page.locator('#error')).toBeHidden();
  } finally {
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((done) => child!.once('exit', done));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
      // serve closes the core and the demo registry after npm itself has gone: wait for it.
      await expect
        .poll(
          () => {
            try {
              process.kill(-(child?.pid ?? 0), 0);
              return 'running';
            } catch {
              return 'gone';
            }
          },
          { timeout: 10_000 },
        )
        .toBe('gone');
    }
    await rm(home, { recursive: true, force: true });
  }
});
