/**
 * Pipelined GETs over TLS (src/node/http/pipeline-connection.ts, docs/UPDATER.md §5, "Pipelined
 * GETs"): an `https:` origin's small-artifact GETs share a verified TLS connection, the
 * certificate is checked against the fetcher's trust anchors and the host name exactly as
 * node:https checks it, SNI names a host but never an IP, and a later connection resumes the
 * origin's session.
 */
import type { AddressInfo, Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import type { FetchResponse } from '#core/ports.js';
import { createHttpFetcher } from '#node/http/http-fetcher.js';
import { readAll } from '#test/loopback-server.js';
import { makeTestPki, type TestPki } from '#test/tls-cert.js';

interface Seen {
  /** Paths asked, per connection, in order. */
  readonly conns: string[][];
  /** Server names the clients sent (SNI), '' for none, per connection. */
  readonly servernames: string[];
  /** Whether each connection resumed an earlier session. */
  readonly resumed: boolean[];
  /** Connections still to reset at TCP level (set by a test). */
  dropNext: number;
}

const servers: { server: Server; sockets: TLSSocket[] }[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(({ server, sockets }) => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

const ok = (body: string, extra = ''): string =>
  `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;

/**
 * A TLS server with `pki`'s certificate answering each GET with `body<path>` once `batch`
 * requests have come on a connection (so the answers can only come if they were pipelined).
 */
async function tlsServer(
  pki: TestPki,
  batch: number,
  extra = '',
): Promise<{ port: number; seen: Seen }> {
  const seen: Seen = { conns: [], servernames: [], resumed: [], dropNext: 0 };
  const sockets: TLSSocket[] = [];
  const server = createServer({ cert: pki.certPem, key: pki.keyPem }, (socket) => {
    sockets.push(socket);
    const paths: string[] = [];
    seen.conns.push(paths);
    seen.servernames.push((socket as TLSSocket & { servername?: string | false }).servername || '');
    seen.resumed.push(socket.isSessionReused());
    let text = '';
    let answered = 0;
    socket.on('error', () => undefined);
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      for (let end = text.indexOf('\r\n\r\n'); end >= 0; end = text.indexOf('\r\n\r\n')) {
        paths.push(text.slice(0, end).split(' ')[1] ?? '');
        text = text.slice(end + 4);
      }
      if (paths.length - answered >= batch) {
        socket.write(
          paths
            .slice(answered)
            .map((p) => ok(`body${p}`, extra))
            .join(''),
        );
        answered = paths.length;
      }
    });
  });
  server.on('tlsClientError', () => undefined);
  // `seen.dropNext` connections are reset before any TLS byte is answered.
  server.on('connection', (socket: Socket) => {
    if (seen.dropNext > 0) {
      seen.dropNext--;
      socket.resetAndDestroy();
    }
  });
  servers.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen };
}

const pki = makeTestPki();
const fetcher = (ca: string = pki.caPem) =>
  createHttpFetcher({ connectTimeoutMs: 5000, pipelineConnections: 1, ca });
const get = (f: ReturnType<typeof fetcher>, url: string): Promise<FetchResponse> =>
  f.get(url, { headers: { 'user-agent': 't' }, signal: new AbortController().signal });
const text = async (response: Promise<FetchResponse>): Promise<string> =>
  readAll((await response).body);

describe('pipelined GETs over TLS', () => {
  it('sends several GETs on one verified connection and reads the answers in order', async () => {
    const { port, seen } = await tlsServer(pki, 3);
    const f = fetcher();
    const base = `https://127.0.0.1:${port}`;
    expect(f.pipelines?.(`${base}/a`)).toBe(true);
    const bodies = await Promise.all(['/a', '/b', '/c'].map((p) => text(get(f, base + p))));
    expect(bodies).toEqual(['body/a', 'body/b', 'body/c']);
    expect(seen.conns).toEqual([['/a', '/b', '/c']]);
    // An IP literal is never sent as SNI (RFC 6066 §3), as node:https does.
    expect(seen.servernames).toEqual(['']);
  });

  it('sends the host name as SNI and checks the certificate against it', async () => {
    const { port, seen } = await tlsServer(pki, 1);
    expect(await text(get(fetcher(), `https://localhost:${port}/x`))).toBe('body/x');
    expect(seen.servernames).toEqual(['localhost']);
  });

  it('refuses a certificate from an authority it does not trust, without re-sending', async () => {
    const { port, seen } = await tlsServer(pki, 1);
    const stranger = makeTestPki();
    const failures = await Promise.all(
      ['/a', '/b'].map((p) =>
        get(fetcher(stranger.caPem), `https://127.0.0.1:${port}${p}`).then(
          () => undefined,
          (error: unknown) => error,
        ),
      ),
    );
    for (const error of failures) {
      // Both authorities bear one name: OpenSSL finds the stranger's, whose signature fails.
      expect(error).toMatchObject({
        code: 'NETWORK',
        details: { errno: 'CERT_SIGNATURE_FAILURE' },
      });
    }
    expect(seen.conns.flat()).toEqual([]);
  });

  it('refuses a certificate for another name', async () => {
    const other = makeTestPki(['registry.example']);
    const { port } = await tlsServer(other, 1);
    await expect(get(fetcher(other.caPem), `https://127.0.0.1:${port}/a`)).rejects.toMatchObject({
      code: 'NETWORK',
      details: { errno: 'ERR_TLS_CERT_ALTNAME_INVALID' },
    });
  });

  it("resumes the origin's session on its next connection", async () => {
    // Connection: close after each answer: every GET needs a new connection.
    const { port, seen } = await tlsServer(pki, 1, 'Connection: close\r\n');
    const f = fetcher();
    expect(await text(get(f, `https://localhost:${port}/1`))).toBe('body/1');
    expect(await text(get(f, `https://localhost:${port}/2`))).toBe('body/2');
    expect(seen.conns).toEqual([['/1'], ['/2']]);
    expect(seen.resumed).toEqual([false, true]);
  });

  it('forgets the session after a socket error: the next connection makes a full handshake', async () => {
    const { port, seen } = await tlsServer(pki, 1, 'Connection: close\r\n');
    const f = fetcher();
    expect(await text(get(f, `https://localhost:${port}/1`))).toBe('body/1');
    seen.dropNext = 1;
    await expect(get(f, `https://localhost:${port}/2`)).rejects.toMatchObject({
      code: 'NETWORK',
      details: { errno: 'ECONNRESET' },
    });
    expect(await text(get(f, `https://localhost:${port}/3`))).toBe('body/3');
    expect(seen.conns).toEqual([['/1'], ['/3']]);
    // A full handshake, as node:https's agent makes after a socket error.
    expect(seen.resumed).toEqual([false, false]);
  });
});
