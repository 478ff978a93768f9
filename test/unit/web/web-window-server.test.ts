/**
 * The web window's HTTP server (src/web/web-window-server.ts) on a real loopback port, with
 * fake handlers: every refusal of docs/SECURITY.md §6 has its own named test asserting its
 * code, and the security headers are on every answer, refusals included.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppStatus, BridgeHandlers } from '../../../src/preload/ipc-contract.js';
import { CONTENT_SECURITY_POLICY } from '../../../src/main/app-protocol.js';
import {
  openRawStream,
  rawRequest,
  type RawAnswer,
  type RawRequest,
} from '../../helpers/raw-http.js';
import {
  startWebWindow,
  withBridgeScript,
  type WebWindow,
} from '../../../src/web/web-window-server.js';

const TOKEN = 'test-token-0123456789';
const STATUS = { phase: 'idle', installedVersion: '1.0.0' } as unknown as AppStatus;

type Answer = RawAnswer;

let dir: string;
let win: WebWindow;
let calls: string[];
let logged: string[];
let statusListeners: Set<(s: AppStatus) => void>;
let checkNowImpl: () => Promise<void>;

const send = (options: RawRequest): Promise<Answer> => rawRequest(win.port, options);

const cookie = (): Record<string, string> => ({ cookie: `updater-session-${win.port}=${TOKEN}` });
const own = (): Record<string, string> => ({
  ...cookie(),
  origin: `http://127.0.0.1:${win.port}`,
  'content-type': 'application/json',
});
const call = (name: string, args: unknown[] = [], headers = own()): Promise<Answer> =>
  send({ method: 'POST', path: `/api/bridge/${name}`, headers, body: JSON.stringify({ args }) });
const code = (answer: Answer): unknown => answer.code;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'web-window-'));
  await mkdir(join(dir, 'renderer'));
  await writeFile(
    join(dir, 'renderer', 'index.html'),
    '<head>\n    <script src="renderer.js" defer></script>\n</head><body>window</body>',
  );
  await writeFile(join(dir, 'renderer', 'renderer.js'), 'void 0;');
  await writeFile(join(dir, 'web.js'), '/* bridge */');
  statusListeners = new Set();
  logged = [];
  const handlers: BridgeHandlers = {
    getStatus: () => {
      calls.push('getStatus');
      return STATUS;
    },
    checkNow: () => {
      calls.push('checkNow');
      return checkNowImpl();
    },
    getActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
    cancel: () => Promise.resolve({ ok: true, words: 'No update is running.' }),
    rollBack: () => Promise.resolve({ ok: true, words: '' }),
    verify: () => Promise.resolve({ ok: true, words: '' }),
    openLog: () => Promise.resolve({ ok: true, words: '' }),
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
    },
    token: TOKEN,
    maxBodyBytes: 1024,
    maxStreams: 2,
    log: (message) => logged.push(message),
  });
});

afterAll(async () => {
  await win.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  calls = [];
  checkNowImpl = () => Promise.resolve();
});

describe('web window: the token', () => {
  it('prints a URL with the token on the loopback address it listens on', () => {
    expect(win.url).toBe(`http://127.0.0.1:${win.port}/?token=${TOKEN}`);
    expect(win.origin).toBe(`http://127.0.0.1:${win.port}`);
  });

  it('exchanges the token for an HttpOnly SameSite=Strict cookie and drops it from the address', async () => {
    const answer = await send({ path: `/?token=${TOKEN}` });
    expect(answer.status).toBe(303);
    expect(answer.headers['location']).toBe('/');
    expect(answer.headers['set-cookie']).toEqual([
      `updater-session-${win.port}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`,
    ]);
  });

  it('UNAUTHORIZED: the page without token or cookie', async () => {
    const answer = await send({});
    expect(answer.status).toBe(401);
    expect(code(answer)).toBe('UNAUTHORIZED');
  });

  it('UNAUTHORIZED: a wrong token, and no cookie is set', async () => {
    const answer = await send({ path: '/?token=wrong' });
    expect(answer.status).toBe(401);
    expect(code(answer)).toBe('UNAUTHORIZED');
    expect(answer.headers['set-cookie']).toBeUndefined();
  });

  it('UNAUTHORIZED: a wrong cookie, or a cookie of another port', async () => {
    for (const value of [`updater-session-${win.port}=nope`, `updater-session-1=${TOKEN}`]) {
      const answer = await send({ headers: { cookie: value } });
      expect(code(answer)).toBe('UNAUTHORIZED');
    }
  });

  it('UNAUTHORIZED: a bridge call without the cookie never runs', async () => {
    const { cookie: _c, ...rest } = own();
    const answer = await call('checkNow', [], rest);
    expect(code(answer)).toBe('UNAUTHORIZED');
    expect(calls).toEqual([]);
  });

  it('BAD_REQUEST: the token is accepted on the page address only', async () => {
    const answer = await send({ path: `/renderer.js?token=${TOKEN}` });
    expect(code(answer)).toBe('BAD_REQUEST');
  });
});

describe('web window: Host (DNS rebinding)', () => {
  it('HOST_REFUSED: a foreign Host is refused before the token is even looked at', async () => {
    const answer = await send({
      path: `/?token=${TOKEN}`,
      headers: { host: `evil.example:${win.port}` },
    });
    expect(answer.status).toBe(421);
    expect(code(answer)).toBe('HOST_REFUSED');
    expect(answer.headers['set-cookie']).toBeUndefined();
  });

  it("BAD_REQUEST: a request target that is no URL is the client's error, not INTERNAL", async () => {
    const loggedBefore = logged.length;
    const answer = await send({ path: 'http://[', headers: cookie() });
    expect(answer.status).toBe(400);
    expect(code(answer)).toBe('BAD_REQUEST');
    expect(logged.length).toBe(loggedBefore);
  });

  it('HOST_REFUSED: a foreign Host with a valid cookie cannot call the bridge', async () => {
    const answer = await call('checkNow', [], { ...own(), host: `evil.example:${win.port}` });
    expect(code(answer)).toBe('HOST_REFUSED');
    expect(calls).toEqual([]);
  });

  it('accepts localhost as a name for the loopback listener', async () => {
    const answer = await send({ headers: { ...cookie(), host: `localhost:${win.port}` } });
    expect(answer.status).toBe(200);
  });
});

describe('web window: state-changing calls', () => {
  it('runs an operation for a POST with cookie, own Origin and JSON', async () => {
    const answer = await call('getStatus');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ok: true, result: STATUS });
    expect((await call('checkNow')).body).toBe('{"ok":true}');
    expect(calls).toEqual(['getStatus', 'checkNow']);
  });

  it('ORIGIN_REFUSED: a foreign Origin (a cross-site form or fetch)', async () => {
    const answer = await call('checkNow', [], { ...own(), origin: 'http://evil.example' });
    expect(answer.status).toBe(403);
    expect(code(answer)).toBe('ORIGIN_REFUSED');
    expect(calls).toEqual([]);
  });

  it('ORIGIN_REFUSED: no Origin at all', async () => {
    const { origin: _o, ...rest } = own();
    expect(code(await call('checkNow', [], rest))).toBe('ORIGIN_REFUSED');
    expect(calls).toEqual([]);
  });

  it('METHOD_NOT_ALLOWED: a bridge call by GET', async () => {
    const answer = await send({ path: '/api/bridge/checkNow', headers: own() });
    expect(answer.status).toBe(405);
    expect(code(answer)).toBe('METHOD_NOT_ALLOWED');
    expect(calls).toEqual([]);
  });

  it('UNSUPPORTED_MEDIA_TYPE: a form-encoded body (what a cross-site form can send)', async () => {
    const answer = await call('checkNow', [], {
      ...own(),
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(answer.status).toBe(415);
    expect(code(answer)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('BAD_ARGUMENTS: arguments the contract refuses, or a body that is not {"args": [...]}', async () => {
    expect(code(await call('checkNow', ['extra']))).toBe('BAD_ARGUMENTS');
    const answer = await send({
      method: 'POST',
      path: '/api/bridge/checkNow',
      headers: own(),
      body: '{"args":1}',
    });
    expect(answer.status).toBe(400);
    expect(code(answer)).toBe('BAD_ARGUMENTS');
    expect(calls).toEqual([]);
  });

  it('BAD_REQUEST: a body that is not JSON', async () => {
    const answer = await send({
      method: 'POST',
      path: '/api/bridge/checkNow',
      headers: own(),
      body: '{',
    });
    expect(code(answer)).toBe('BAD_REQUEST');
  });

  it('BODY_TOO_LARGE: more than the cap', async () => {
    const answer = await call('checkNow', ['x'.repeat(2048)]);
    expect(answer.status).toBe(413);
    expect(code(answer)).toBe('BODY_TOO_LARGE');
  });

  it('NOT_FOUND: an operation the contract does not name (prototype names included)', async () => {
    for (const name of ['rmrf', 'constructor', '__proto__', 'toString']) {
      expect(code(await call(name)), name).toBe('NOT_FOUND');
    }
  });

  it('INTERNAL: a handler that fails is logged and answered 500, the server stays up', async () => {
    checkNowImpl = () => Promise.reject(new Error('boom'));
    const answer = await call('checkNow');
    expect(answer.status).toBe(500);
    expect(code(answer)).toBe('INTERNAL');
    expect(logged.at(-1)).toContain('boom');
    expect((await call('getStatus')).status).toBe(200);
  });
});

describe('web window: the page and its headers', () => {
  it('serves the renderer page with the web bridge loaded before the renderer', async () => {
    const answer = await send({ headers: cookie() });
    expect(answer.status).toBe(200);
    expect(answer.body.indexOf('src="web-bridge.js"')).toBeGreaterThan(-1);
    expect(answer.body.indexOf('src="web-bridge.js"')).toBeLessThan(
      answer.body.indexOf('src="renderer.js"'),
    );
    const bridge = await send({ path: '/web-bridge.js', headers: cookie() });
    expect(bridge.body).toBe('/* bridge */');
    expect(bridge.headers['content-type']).toContain('text/javascript');
  });

  it('sends the Electron window’s CSP and the framing/sniffing/referrer headers on every answer, refusals included', async () => {
    const answers = [
      await send({ headers: cookie() }),
      await send({}),
      await send({ headers: { host: 'evil.example:1' } }),
      await call('checkNow', [], { ...own(), origin: 'http://evil.example' }),
    ];
    for (const answer of answers) {
      expect(answer.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('no CORS: never an Access-Control-Allow header, a preflight is refused', async () => {
    const preflight = await send({
      method: 'OPTIONS',
      path: '/api/bridge/checkNow',
      headers: {
        ...cookie(),
        origin: 'http://evil.example',
        'access-control-request-method': 'POST',
      },
    });
    expect(preflight.status).toBe(405);
    const answers = [preflight, await call('getStatus')];
    for (const answer of answers) {
      expect(Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'))).toEqual(
        [],
      );
    }
  });

  it('NOT_FOUND: files outside the renderer, and types it does not serve', async () => {
    for (const path of ['/../web.js', '/%2e%2e/web.js', '/nothing.js', '/index.json']) {
      expect((await send({ path, headers: cookie() })).status, path).toBe(404);
    }
  });

  it('refuses to start from an index.html that no longer loads renderer.js', () => {
    expect(() => withBridgeScript('<html></html>')).toThrow(/renderer\.js/);
  });
});

describe('web window: push events', () => {
  it('streams each push event of the contract as a server-sent event', async () => {
    let text = '';
    let gotStatus: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (gotStatus = resolve));
    const stream = await openRawStream(win.port, '/api/events', cookie(), (chunk) => {
      text += chunk;
      if (text.includes('event: status')) gotStatus();
    });
    expect(stream.headers['content-type']).toContain('text/event-stream');
    for (const listener of statusListeners) listener(STATUS);
    await arrived;
    stream.close();
    const frames = text;
    expect(frames).toContain(`event: status\ndata: ${JSON.stringify(STATUS)}\n\n`);
  });

  it('UNAUTHORIZED: the stream without the cookie', async () => {
    expect(code(await send({ path: '/api/events' }))).toBe('UNAUTHORIZED');
  });

  it('TOO_MANY_STREAMS: one page more than the cap is refused', async () => {
    const open: { close(): void }[] = [];
    const openStream = async (): Promise<number> => {
      const stream = await openRawStream(win.port, '/api/events', cookie());
      open.push(stream);
      return stream.status;
    };
    try {
      expect(await openStream()).toBe(200);
      expect(await openStream()).toBe(200);
      expect(await openStream()).toBe(503);
    } finally {
      for (const stream of open) stream.close();
    }
  });
});
