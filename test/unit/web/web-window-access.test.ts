/**
 * Who may talk to the web window's server (src/web/web-window-server.ts): the token exchanged
 * for the session cookie, and the Host check against DNS rebinding. Each refusal of
 * docs/SECURITY.md §6 has its own named test asserting its code.
 */
import { describe, expect, it } from 'vitest';
import { code, TOKEN, useWebWindow } from '#test/web-window-fixture.js';

const w = useWebWindow();
const { send, call, cookie, own, calls, logged } = w;

describe('web window: the token', () => {
  it('prints a URL with the token on the loopback address it listens on', () => {
    expect(w.win.url).toBe(`http://127.0.0.1:${w.win.port}/?token=${TOKEN}`);
    expect(w.win.origin).toBe(`http://127.0.0.1:${w.win.port}`);
  });

  it('exchanges the token for an HttpOnly SameSite=Strict cookie and drops it from the address', async () => {
    const answer = await send({ path: `/?token=${TOKEN}` });
    expect(answer.status).toBe(303);
    expect(answer.headers['location']).toBe('/');
    expect(answer.headers['set-cookie']).toEqual([
      `updater-session-${w.win.port}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`,
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
    for (const value of [`updater-session-${w.win.port}=nope`, `updater-session-1=${TOKEN}`]) {
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
      headers: { host: `evil.example:${w.win.port}` },
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
    const answer = await call('checkNow', [], { ...own(), host: `evil.example:${w.win.port}` });
    expect(code(answer)).toBe('HOST_REFUSED');
    expect(calls).toEqual([]);
  });

  it('accepts localhost as a name for the loopback listener', async () => {
    const answer = await send({ headers: { ...cookie(), host: `localhost:${w.win.port}` } });
    expect(answer.status).toBe(200);
  });
});
