/**
 * `npm start -- --web` as a newcomer meets it (README.md §Quick start): a SIGTERM or SIGINT to
 * any of its processes (npm, scripts/start.mjs, `updater serve`) stops all of them and closes
 * the window's port; the address comes before the words that point at it; a wrong option is
 * refused before anything is built; a port in use is EADDRINUSE, exit 1, as from `serve` and
 * the companion server.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverCliArgv } from '#test/built-clis.js';

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'npm-start-signals-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Without `npm test`'s own npm_* variables, and with no browser to open. */
function env(): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_'))),
    DISPLAY: '',
    WAYLAND_DISPLAY: '',
    XDG_CONFIG_HOME: join(home, 'config'),
  };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The children of `pid`: their pids and command lines. */
async function childrenOf(pid: number): Promise<{ pid: number; args: string }[]> {
  const { stdout } = await run('ps', ['-o', 'pid=,args=', '--ppid', String(pid)]).catch(() => ({
    stdout: '',
  }));
  return stdout
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), args: m[2] ?? '' }));
}

/** Every process below `pid` (esbuild's service process included), depth first. */
async function descendantsOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const child of await childrenOf(pid))
    out.push(child.pid, ...(await descendantsOf(child.pid)));
  return out;
}

const portOpen = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

interface Started {
  readonly npm: ChildProcess;
  readonly start: number;
  readonly serve: number;
  /** npm and every process below it while it served. */
  readonly all: number[];
  readonly port: number;
}

/** `npm start -- --web --no-open` on a free port, up to its address line. */
async function startWeb(dataDir: string): Promise<Started> {
  const npm = spawn(
    'npm',
    ['start', '--', '--web', '--no-open', '--port', '0', '--data-dir', dataDir],
    // Its own process group, so that the clean-up can reach whatever is left.
    { cwd: root, env: env(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  npm.stderr?.resume();
  const lines: string[] = [];
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no address: ${lines.join('\n')}`)), 120_000);
    createInterface({ input: npm.stdout }).on('line', (line) => {
      lines.push(line);
      const match = /^The updater window is at (\S+)$/.exec(line);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        done(match[1]);
      }
    });
    npm.once('exit', (code) => fail(new Error(`npm start exited ${code}: ${lines.join('\n')}`)));
  });
  const start = (await childrenOf(npm.pid!)).find((c) => c.args.includes('scripts/start.mjs'));
  const serve = (await childrenOf(start?.pid ?? 0)).find((c) => / serve( |$)/.test(c.args));
  if (start === undefined || serve === undefined) throw new Error('no start.mjs or serve');
  const all = [npm.pid!, ...(await descendantsOf(npm.pid!))];
  return { npm, start: start.pid, serve: serve.pid, all, port: Number(new URL(url).port) };
}

/** Polls (bounded) until every process is gone and the port refuses. */
async function stoppedWithin(s: Started, ms: number): Promise<{ left: number[]; open: boolean }> {
  const pids = s.all;
  const deadline = Date.now() + ms;
  for (;;) {
    const left = pids.filter(alive);
    const open = await portOpen(s.port);
    if ((left.length === 0 && !open) || Date.now() > deadline) return { left, open };
    await sleep(100);
  }
}

describe('npm start -- --web', () => {
  const cases = [
    ['npm', 'SIGTERM'],
    ['npm', 'SIGINT'],
    ['start', 'SIGTERM'],
    ['serve', 'SIGINT'],
  ] as const;
  it.each(cases)(
    '%s gets %s: nothing is left running, the port is closed',
    async (who, signal) => {
      const started = await startWeb(join(home, `data-${who}-${signal}`));
      try {
        expect(await portOpen(started.port)).toBe(true);
        expect(started.all).toEqual(expect.arrayContaining([started.start, started.serve]));
        const pid =
          who === 'npm' ? started.npm.pid! : who === 'start' ? started.start : started.serve;
        process.kill(pid, signal);
        expect(await stoppedWithin(started, 20_000)).toEqual({ left: [], open: false });
      } finally {
        try {
          process.kill(-started.npm.pid!, 'SIGKILL');
        } catch {
          // the group is gone, as it should be
        }
      }
    },
    180_000,
  );

  it('prints the address before the words that point at it', async () => {
    const dataDir = join(home, 'data-order');
    // One pipe for both streams, so their order is the order they were written in.
    const child = spawn(
      'bash',
      ['-c', `exec node scripts/start.mjs --web --no-open --port 0 --data-dir '${dataDir}' 2>&1`],
      { cwd: root, env: env(), detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines: string[] = [];
    try {
      await new Promise<void>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(lines.join('\n'))), 120_000);
        createInterface({ input: child.stdout }).on('line', (line) => {
          lines.push(line);
          if (/open the address above/.test(line)) {
            clearTimeout(timer);
            done();
          }
        });
      });
      const address = lines.findIndex((l) => l.startsWith('The updater window is at http'));
      const pointer = lines.findIndex((l) => /open the address above/.test(l));
      expect(address).toBeGreaterThanOrEqual(0);
      expect(address).toBeLessThan(pointer);
    } finally {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }, 180_000);

  it('refuses a wrong option at once, by name, before building anything (exit 2)', async () => {
    const t0 = Date.now();
    const failed = await run('npm', ['start', '--', '--web', '--prot', '8080'], {
      cwd: root,
      env: env(),
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2 });
    const { stdout, stderr } = failed;
    expect(stderr).toContain("npm start: unknown option '--prot' (did you mean '--port'?)");
    expect(stdout).not.toContain('built the desktop app');
    expect(Date.now() - t0).toBeLessThan(60_000);
  }, 90_000);

  it('a port in use: EADDRINUSE and exit 1, as from the companion server', async () => {
    const busy: Server = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const port = (busy.address() as { port: number }).port;
    try {
      const args = ['--web', '--no-open', '--port', String(port), '--data-dir', join(home, 'b')];
      const start = await run('npm', ['start', '--', ...args], { cwd: root, env: env() }).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(start).toMatchObject({ code: 1 });
      expect((start as { stderr: string }).stderr).toContain('error EADDRINUSE');
      const server = await run(process.execPath, [...serverCliArgv(), '--port', String(port)], {
        cwd: root,
        env: env(),
      }).catch((error: { code: number; stderr: string }) => error);
      expect(server).toMatchObject({ code: 1 });
      expect(JSON.parse((server as { stderr: string }).stderr)).toMatchObject({
        code: 'EADDRINUSE',
      });
    } finally {
      busy.close();
    }
  }, 180_000);
});
