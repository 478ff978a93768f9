/**
 * What the web window's server (src/web/web-window-server.ts) logs, and at which level
 * (docs/PROTOCOL.md §7): a client that goes away mid-request is normal and logged at debug,
 * never at error; a failure of the app still is an error, even one with a reset's code.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openRawStream } from '#test/raw-http.js';
import { code, STATUS, useWebWindow } from '#test/web-window-fixture.js';

const w = useWebWindow();
const { call, cookie, own, calls, logged, debugged, statusListeners } = w;

/**
 * Starts a bridge call on a raw socket and drops the connection halfway through its body. The
 * head carries `Expect: 100-continue`: node answers 100 right before it hands the request to
 * the server's handler, so the drop comes while the handler reads the body.
 */
async function abortMidBody(): Promise<void> {
  const port = w.win.port;
  const body = JSON.stringify({ args: ['x'.repeat(200)] });
  const head = { ...own(), host: `127.0.0.1:${port}`, 'content-length': String(body.length) };
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(
    `POST /api/bridge/checkNow HTTP/1.1\r\n` +
      Object.entries({ ...head, expect: '100-continue' })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      '\r\n',
  );
  let answer = '';
  socket.setEncoding('utf8');
  for await (const chunk of socket as AsyncIterable<string>) {
    answer += chunk;
    if (answer.includes('\r\n\r\n')) break;
  }
  expect(answer).toMatch(/^HTTP\/1\.1 100 Continue/);
  socket.write(body.slice(0, 50));
  socket.resetAndDestroy();
}

describe('web window: a client that leaves', () => {
  it('a bridge call aborted mid-body is logged at debug, nothing at error, nothing run', async () => {
    const before = logged.length;
    const logLine = w.nextLog();
    await abortMidBody();
    await logLine;
    expect(logged.length).toBe(before);
    expect(debugged.at(-1)).toMatch(/^web window: the client left mid-request/);
    expect(calls).toEqual([]);
    // The server stays up for the next call.
    expect((await call('getStatus')).status).toBe(200);
  }, 10_000);

  it('a closed event stream logs nothing at error, and later pushes skip it', async () => {
    const before = logged.length;
    const stream = await openRawStream(w.win.port, '/api/events', cookie());
    expect(stream.status).toBe(200);
    stream.close();
    for (const listener of statusListeners) listener(STATUS);
    expect((await call('getStatus')).status).toBe(200);
    for (const listener of statusListeners) listener(STATUS);
    expect(logged.length).toBe(before);
  });

  it('a handler that fails with a reset of its own, the client still waiting, is an error', async () => {
    w.checkNowImpl = () =>
      Promise.reject(Object.assign(new Error('registry reset'), { code: 'ECONNRESET' }));
    const answer = await call('checkNow');
    expect(answer.status).toBe(500);
    expect(code(answer)).toBe('INTERNAL');
    expect(logged.at(-1)).toBe('web window: registry reset');
  });
});
