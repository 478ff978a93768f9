/**
 * Pipelined GETs through the node fetcher (src/node/http/pipeline-pool.ts, pipeline-connection.ts)
 * against a scripted loopback TCP server: answers in order, a head or body split anywhere, a
 * close or `Connection: close` mid-pipeline, odd answers going back to node:http, an over-long
 * head, an abort of a queued request (docs/UPDATER.md §5, "Pipelined GETs"). Over TLS:
 * pipeline-tls.test.ts.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FetchResponse } from '#core/ports.js';
import { createHttpFetcher } from '#node/http/http-fetcher.js';
import { requestText } from '#node/http/pipeline-pool.js';
import { readAll } from '#test/loopback-server.js';

interface Conn {
  readonly index: number;
  readonly socket: Socket;
  /** Paths asked on this connection so far. */
  readonly paths: string[];
}

type OnRequest = (conn: Conn, path: string) => void;

const servers: { server: Server; sockets: Socket[] }[] = [];
/** Closes the servers, cutting their connections (the client keeps idle ones open). */
const closeAll = (): Promise<unknown> =>
  Promise.all(
    servers.splice(0).map(({ server, sockets }) => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
afterEach(closeAll);

/** A TCP server calling `onRequest` for each request head it reads, and every path seen. */
async function rawServer(onRequest: OnRequest): Promise<{ base: string; seen: string[] }> {
  const seen: string[] = [];
  let conns = 0;
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    const conn: Conn = { index: conns++, socket, paths: [] };
    let text = '';
    socket.on('error', () => undefined);
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      for (let end = text.indexOf('\r\n\r\n'); end >= 0; end = text.indexOf('\r\n\r\n')) {
        const path = text.slice(0, end).split(' ')[1] ?? '';
        text = text.slice(end + 4);
        seen.push(path);
        conn.paths.push(path);
        onRequest(conn, path);
      }
    });
  });
  servers.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const ok = (body: string, extra = ''): string =>
  `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;

const fetcher = () => createHttpFetcher({ connectTimeoutMs: 2000, pipelineConnections: 1 });
const get = (f: ReturnType<typeof fetcher>, url: string, signal = new AbortController().signal) =>
  f.get(url, { headers: { 'user-agent': 't' }, signal });
const text = async (response: Promise<FetchResponse>): Promise<string> =>
  readAll((await response).body);

describe('pipelined GETs', () => {
  it('sends GETs on one connection before answers come and reads the answers in order', async () => {
    const { base, seen } = await rawServer((conn) => {
      if (conn.paths.length === 3)
        conn.socket.write(conn.paths.map((p) => ok(`body${p}`)).join(''));
    });
    const f = fetcher();
    expect(f.pipelines?.(`${base}/a`)).toBe(true);
    const bodies = await Promise.all(['/a', '/b', '/c'].map((p) => text(get(f, base + p))));
    expect(bodies).toEqual(['body/a', 'body/b', 'body/c']);
    expect(seen).toEqual(['/a', '/b', '/c']);
  });

  it('frames answers split at every byte of status, headers and body', async () => {
    const stream = ok('hello', 'ETag: "1"\r\n') + ok('world!');
    let split = 1;
    const { base } = await rawServer((conn) => {
      if (conn.paths.length % 2 !== 0) return;
      const at = split++;
      conn.socket.write(stream.slice(0, at), 'latin1');
      setImmediate(() => conn.socket.write(stream.slice(at), 'latin1'));
    });
    const f = fetcher();
    for (let i = 1; i < stream.length; i++) {
      const asked = get(f, `${base}/1`);
      const second = get(f, `${base}/2`);
      const first = await asked;
      expect(first.header('etag')).toBe('"1"');
      expect(await readAll(first.body)).toBe('hello');
      expect(await text(second)).toBe('world!');
    }
    expect(split).toBe(stream.length);
  });

  it('re-sends the unanswered GETs on a new connection when the server closes mid-pipeline', async () => {
    const { base, seen } = await rawServer((conn, path) => {
      if (conn.index > 0) conn.socket.write(ok(`again${path}`));
      else if (conn.paths.length === 2) conn.socket.end(ok('first'));
    });
    const f = fetcher();
    const bodies = await Promise.all([text(get(f, `${base}/1`)), text(get(f, `${base}/2`))]);
    expect(bodies).toEqual(['first', 'again/2']);
    expect(seen).toEqual(['/1', '/2', '/2']);
  });

  it('sends nothing more on a connection answered with Connection: close', async () => {
    const { base, seen } = await rawServer((conn, path) => {
      if (conn.index > 0) conn.socket.write(ok(`again${path}`));
      // The socket stays open: the client must not wait for the second answer on it.
      else if (conn.paths.length === 2) conn.socket.write(ok('first', 'Connection: close\r\n'));
    });
    const f = fetcher();
    const bodies = await Promise.all([text(get(f, `${base}/1`)), text(get(f, `${base}/2`))]);
    expect(bodies).toEqual(['first', 'again/2']);
    expect(seen).toEqual(['/1', '/2', '/2']);
  });

  it('gives a chunked answer, one without a length and any other status to node:http', async () => {
    const answers: Record<string, string> = {
      '/chunked': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
      '/missing': 'HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\nnope',
    };
    const { base, seen } = await rawServer((conn, path) => {
      if (path === '/unframed') conn.socket.end('HTTP/1.1 200 OK\r\n\r\nto the end');
      else conn.socket.write(answers[path] ?? ok('?'));
    });
    const f = fetcher();
    expect(await text(get(f, `${base}/chunked`))).toBe('hello');
    const missing = await get(f, `${base}/missing`);
    expect([missing.status, await readAll(missing.body)]).toEqual([404, 'nope']);
    expect(await text(get(f, `${base}/unframed`))).toBe('to the end');
    // Each asked twice: once pipelined, once by node:http.
    expect(seen).toEqual([
      '/chunked',
      '/chunked',
      '/missing',
      '/missing',
      '/unframed',
      '/unframed',
    ]);
  });

  it('takes no byte past a Content-Length as body: what follows is the next head, or odd', async () => {
    const { base, seen } = await rawServer((conn, path) => {
      if (conn.index > 0) conn.socket.write(ok(`again${path}`));
      else if (conn.paths.length === 2)
        conn.socket.write(`${ok('abc')}XYZ not a status line\r\n\r\n`);
    });
    const f = fetcher();
    const bodies = await Promise.all([text(get(f, `${base}/1`)), text(get(f, `${base}/2`))]);
    expect(bodies).toEqual(['abc', 'again/2']);
    expect(seen).toEqual(['/1', '/2', '/2']);
  });

  it('fails an over-long head with a clear NETWORK error', async () => {
    const { base } = await rawServer((conn) => {
      conn.socket.write(
        `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(17_000)}\r\nContent-Length: 1\r\n\r\nx`,
      );
    });
    await expect(get(fetcher(), `${base}/big`)).rejects.toMatchObject({
      code: 'NETWORK',
      transient: true,
      message: expect.stringMatching(/response head over 16384 bytes/) as unknown,
    });
  });

  it('fails an aborted queued GET and re-sends the others on a new connection', async () => {
    const { base, seen } = await rawServer((conn, path) => {
      if (conn.index > 0) conn.socket.write(ok(`again${path}`));
    });
    const f = fetcher();
    const aborter = new AbortController();
    const first = text(get(f, `${base}/1`));
    const second = get(f, `${base}/2`, aborter.signal);
    const third = text(get(f, `${base}/3`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    aborter.abort();
    await expect(second).rejects.toMatchObject({ code: 'ABORTED' });
    expect([await first, await third]).toEqual(['again/1', 'again/3']);
    expect(seen.slice(0, 3)).toEqual(['/1', '/2', '/3']);
    expect(seen.slice(3).sort()).toEqual(['/1', '/3']);
  });

  it('fails every queued GET as NETWORK when nothing listens', async () => {
    const { base } = await rawServer(() => undefined);
    await closeAll();
    await expect(get(fetcher(), `${base}/x`)).rejects.toMatchObject({
      code: 'NETWORK',
      transient: true,
    });
  });

  it('pipelines http and https, and leaves user info and unpooled fetchers to node:http', () => {
    const f = fetcher();
    expect(f.pipelines?.('https://127.0.0.1:1/x')).toBe(true);
    expect(f.pipelines?.('http://u:p@127.0.0.1:1/x')).toBe(false);
    expect(f.pipelines?.('https://u:p@127.0.0.1:1/x')).toBe(false);
    expect(createHttpFetcher({ connectTimeoutMs: 1 }).pipelines?.('http://127.0.0.1:1/x')).toBe(
      false,
    );
  });
});

describe('requestText', () => {
  it('writes the header lines of a frozen headers object once and reuses them', () => {
    const headers = Object.freeze({ 'user-agent': 't', authorization: 'Bearer k' });
    const first = requestText('/a', 'h:1', headers);
    expect(first).toBe(
      'GET /a HTTP/1.1\r\nHost: h:1\r\nuser-agent: t\r\nauthorization: Bearer k\r\n' +
        'Connection: keep-alive\r\n\r\n',
    );
    expect(requestText('/b', 'h:1', headers)).toBe(first?.replace('/a', '/b'));
  });

  it('refuses a header it does not send, frozen or not, every time', () => {
    const frozen = Object.freeze({ range: 'bytes=1-' });
    expect(requestText('/a', 'h', frozen)).toBeUndefined();
    expect(requestText('/a', 'h', frozen)).toBeUndefined();
    expect(requestText('/a', 'h', { 'x-bad': 'a\r\nb' })).toBeUndefined();
  });

  it('reads an unfrozen headers object afresh at each call', () => {
    const headers: Record<string, string> = { 'user-agent': 't' };
    expect(requestText('/a', 'h', headers)).toContain('user-agent: t\r\n');
    headers['user-agent'] = 'u';
    expect(requestText('/a', 'h', headers)).toContain('user-agent: u\r\n');
  });
});
