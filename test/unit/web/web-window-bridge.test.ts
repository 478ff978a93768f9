/**
 * The bridge calls of the web window's server (src/web/web-window-server.ts): an operation runs
 * only for a POST with the cookie, the page's own Origin and a JSON body within the cap; each
 * refusal of docs/SECURITY.md §6 has its own named test asserting its code.
 */
import { describe, expect, it } from 'vitest';
import { code, STATUS, useWebWindow } from '#test/web-window-fixture.js';

const w = useWebWindow();
const { send, call, own, calls, logged } = w;

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
    w.checkNowImpl = () => Promise.reject(new Error('boom'));
    const answer = await call('checkNow');
    expect(answer.status).toBe(500);
    expect(code(answer)).toBe('INTERNAL');
    expect(logged.at(-1)).toContain('boom');
    expect((await call('getStatus')).status).toBe(200);
  });
});
