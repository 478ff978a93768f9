/**
 * The lean body iterator (src/node/http/response-body.ts): every byte in order, back-pressure
 * while nobody reads, a broken or closed connection as the mapped error, and leaving early
 * closing the connection.
 */
import { request, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { responseBody } from '#node/http/response-body.js';
import { readAll, useLoopbackServer } from '#test/loopback-server.js';

const loopback = useLoopbackServer();

const fail = (error: unknown): UpdateError =>
  new UpdateError('NETWORK', 'broken', { cause: error, transient: true });

async function get(
  url: string,
): Promise<{ body: AsyncIterable<Uint8Array>; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request(url);
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      res.on('error', () => undefined);
      resolve({ body: responseBody(req, res, fail), res });
    });
    req.end();
  });
}

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('responseBody', () => {
  it('yields every byte in order, then ends', async () => {
    const base = await loopback.serve((_req, res) => {
      res.write('a'.repeat(70_000));
      setImmediate(() => res.end('b'.repeat(70_000)));
    });
    const { body } = await get(`${base}/`);
    expect(await readAll(body)).toBe('a'.repeat(70_000) + 'b'.repeat(70_000));
  });

  it('pauses the response while more than it holds waits for the reader', async () => {
    const big = 'x'.repeat(256 * 1024);
    const base = await loopback.serve((_req, res) => {
      res.write(big);
      setTimeout(() => res.end('y'), 20);
    });
    const { body, res } = await get(`${base}/`);
    await tick(60);
    expect(res.isPaused()).toBe(true);
    expect(await readAll(body)).toBe(`${big}y`);
  });

  it('does not pause for a small body that waits for its reader', async () => {
    const base = await loopback.serve((_req, res) => {
      res.end('x'.repeat(1000));
    });
    const { body, res } = await get(`${base}/`);
    await tick(30);
    expect(res.isPaused()).toBe(false);
    expect(await readAll(body)).toBe('x'.repeat(1000));
  });

  it('a connection broken mid-body is the mapped error', async () => {
    const base = await loopback.serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('part');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const { body } = await get(`${base}/`);
    await expect(readAll(body)).rejects.toMatchObject({ code: 'NETWORK', message: 'broken' });
  });

  it('a close with no end and no error of node is the mapped error too', async () => {
    const base = await loopback.serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('part');
    });
    const { body, res } = await get(`${base}/`);
    const reading = readAll(body);
    await tick(10);
    res.emit('close');
    await expect(reading).rejects.toMatchObject({ code: 'NETWORK' });
  });

  it('leaving early destroys the request and its connection', async () => {
    let closed = false;
    const base = await loopback.serve((req, res) => {
      req.socket.on('close', () => (closed = true));
      res.writeHead(200, { 'content-length': '100000' });
      res.write('first');
    });
    const { body, res } = await get(`${base}/`);
    for await (const chunk of body) {
      expect(Buffer.from(chunk).toString()).toBe('first');
      break;
    }
    await tick(30);
    expect(res.destroyed).toBe(true);
    expect(closed).toBe(true);
  });
});
