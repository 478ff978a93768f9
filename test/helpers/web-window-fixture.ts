/**
 * The web window's server (src/web/web-window-server.ts) on a real loopback port with fake
 * handlers, for its tests: one server per test file (beforeAll), the handlers' calls and the
 * log lines recorded, and requests that send exactly the headers a test names.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { AppStatus, BridgeHandlers } from '#preload/ipc-contract.js';
import { startWebWindow, type WebWindow } from '#web/web-window-server.js';
import { rawRequest, type RawAnswer, type RawRequest } from './raw-http.js';

export const TOKEN = 'test-token-0123456789';
export const STATUS = { phase: 'idle', installedVersion: '1.0.0' } as unknown as AppStatus;

export interface WebWindowFixture {
  readonly win: WebWindow;
  /** The operations run since the test began, in order. */
  readonly calls: string[];
  /** What the server logged at error level, since it started. */
  readonly logged: string[];
  /** What it logged at debug level (a client that left). */
  readonly debugged: string[];
  /** Resolves at the server's next log line, whatever its level. */
  readonly nextLog: () => Promise<void>;
  readonly statusListeners: Set<(s: AppStatus) => void>;
  /** What checkNow does (reset to resolve before each test). */
  checkNowImpl: () => Promise<void>;
  readonly send: (options: RawRequest) => Promise<RawAnswer>;
  /** The session cookie. */
  readonly cookie: () => Record<string, string>;
  /** Everything a bridge call of the page carries: cookie, own Origin, JSON. */
  readonly own: () => Record<string, string>;
  readonly call: (
    name: string,
    args?: unknown[],
    headers?: Record<string, string>,
  ) => Promise<RawAnswer>;
}

/** The error body's code of an answer. */
export const code = (answer: RawAnswer): unknown => answer.code;

/** Starts a web window for the test file (stopped after it); read its fields inside tests. */
export function useWebWindow(): WebWindowFixture {
  let dir = '';
  let win: WebWindow | undefined;
  const calls: string[] = [];
  const logged: string[] = [];
  const debugged: string[] = [];
  let logWaiters: (() => void)[] = [];
  const statusListeners = new Set<(s: AppStatus) => void>();
  const fixture: WebWindowFixture = {
    get win() {
      if (win === undefined) throw new Error('the web window is started in beforeAll');
      return win;
    },
    calls,
    logged,
    debugged,
    nextLog: () => new Promise((resolve) => logWaiters.push(resolve)),
    statusListeners,
    checkNowImpl: () => Promise.resolve(),
    send: (options) => rawRequest(fixture.win.port, options),
    cookie: () => ({ cookie: `updater-session-${fixture.win.port}=${TOKEN}` }),
    own: () => ({
      ...fixture.cookie(),
      origin: `http://127.0.0.1:${fixture.win.port}`,
      'content-type': 'application/json',
    }),
    call: (name, args = [], headers = fixture.own()) =>
      fixture.send({
        method: 'POST',
        path: `/api/bridge/${name}`,
        headers,
        body: JSON.stringify({ args }),
      }),
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'web-window-'));
    await mkdir(join(dir, 'renderer'));
    await writeFile(
      join(dir, 'renderer', 'index.html'),
      '<head>\n    <script src="renderer.js" defer></script>\n</head><body>window</body>',
    );
    await writeFile(join(dir, 'renderer', 'renderer.js'), 'void 0;');
    await writeFile(join(dir, 'web.js'), '/* bridge */');
    const handlers: BridgeHandlers = {
      getStatus: () => {
        calls.push('getStatus');
        return STATUS;
      },
      checkNow: () => {
        calls.push('checkNow');
        return fixture.checkNowImpl();
      },
      getActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
      cancel: () => Promise.resolve({ ok: true, words: 'No update is running.' }),
      rollBack: () => Promise.resolve({ ok: true, words: '' }),
      verify: () => Promise.resolve({ ok: true, words: '' }),
      openLog: () => Promise.resolve({ ok: true, words: '' }),
      installNow: () => Promise.resolve({ ok: true, words: '' }),
      skipVersion: () => ({ ok: true, words: '' }),
      setPaused: () => undefined,
      getSettings: () => {
        throw new Error('not used here');
      },
      saveSettings: () => Promise.reject(new Error('not used here')),
    };
    win = await startWebWindow({
      listen: { host: '127.0.0.1', port: 0 },
      rendererDir: join(dir, 'renderer'),
      bridgeScript: join(dir, 'web.js'),
      handlers,
      events: {
        status: (listener) => {
          statusListeners.add(listener);
          return () => statusListeners.delete(listener);
        },
        section: () => () => undefined,
      },
      token: TOKEN,
      maxBodyBytes: 1024,
      maxStreams: 2,
      log: (level, message) => {
        (level === 'error' ? logged : debugged).push(message);
        const waiters = logWaiters;
        logWaiters = [];
        for (const wake of waiters) wake();
      },
    });
  });

  afterAll(async () => {
    await win?.close();
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    calls.length = 0;
    fixture.checkNowImpl = () => Promise.resolve();
  });

  return fixture;
}
