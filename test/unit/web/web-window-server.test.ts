/**
 * The web window's HTTP server (src/web/web-window-server.ts) on a real loopback port, with
 * fake handlers: the page it serves, the security headers on every answer (refusals
 * included), and the push events. Access: web-window-access.test.ts; bridge calls:
 * web-window-bridge.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '#app/app-protocol.js';
import { withBridgeScript } from '#web/web-window-server.js';
import { openRawStream } from '#test/raw-http.js';
import { code, STATUS, useWebWindow } from '#test/web-window-fixture.js';

const w = useWebWindow();
const { send, call, cookie, own, statusListeners } = w;

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
    const stream = await openRawStream(w.win.port, '/api/events', cookie(), (chunk) => {
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
      const stream = await openRawStream(w.win.port, '/api/events', cookie());
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
