import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '#server/compose/start-server.js';
import { postJsonTo } from '#test/post-json.js';

let server: RunningServer;
let key: string;
let inactiveKey: string;
const content = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
const sha = createHash('sha256').update(content).digest('hex');
const etag = `"${sha}"`;

beforeAll(async () => {
  server = await startServer({ dev: true, simulate: false });
  await server.publish({ registry_version: '1.0.0', artifacts: [{ name: 'blob.bin', content }] });
  key = (await server.updates.mintMachineKey()).machine_key;
  inactiveKey = (await server.updates.mintMachineKey({ subscription: 'inactive' })).machine_key;
});
afterAll(async () => {
  await server.close();
});

const artifact = (headers: Record<string, string> = {}, digest = sha, method = 'GET') =>
  fetch(`${server.url}/api/updates/artifacts/${digest}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...headers },
  });

/** Raw GET that resolves with what arrived before the socket ended or broke. */
function rawGet(
  path: string,
): Promise<{ status: number | undefined; bytes: number; aborted: boolean }> {
  return new Promise((resolve) => {
    let status: number | undefined;
    let bytes = 0;
    const req = request(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    req.on('response', (res) => {
      status = res.statusCode;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status, bytes, aborted: false }));
      res.on('aborted', () => resolve({ status, bytes, aborted: true }));
      res.on('error', () => resolve({ status, bytes, aborted: true }));
    });
    req.on('error', () => resolve({ status, bytes, aborted: true }));
    req.end();
  });
}

describe('GET /api/updates/artifacts/:sha256 on a real port', () => {
  it('streams the whole blob with Content-Length, ETag, Accept-Ranges and private caching', async () => {
    const res = await artifact();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('1000');
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('cache-control')).toContain('private');
    expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
  });

  it('answers a single range with 206 and Content-Range', async () => {
    const res = await artifact({ range: 'bytes=10-19' });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(res.headers.get('content-length')).toBe('10');
    expect(Buffer.from(await res.arrayBuffer()).equals(content.subarray(10, 20))).toBe(true);
  });

  it('answers an open range (resume) with the rest of the blob', async () => {
    const res = await artifact({ range: 'bytes=990-' });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer()).equals(content.subarray(990))).toBe(true);
  });

  it('answers a suffix range with the last bytes', async () => {
    const res = await artifact({ range: 'bytes=-5' });
    expect(res.headers.get('content-range')).toBe('bytes 995-999/1000');
    expect(Buffer.from(await res.arrayBuffer()).equals(content.subarray(995))).toBe(true);
  });

  it('answers a range past the end with 416, Content-Range */size and the error body', async () => {
    const res = await artifact({ range: 'bytes=1000-' });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe('bytes */1000');
    expect(await res.json()).toMatchObject({ ok: false, code: 'RANGE_NOT_SATISFIABLE' });
  });

  it('answers a suffix range on an empty artifact with 200 and the empty body (RFC 9110 §14.1.1)', async () => {
    const published = await server.publish({
      registry_version: '1.0.1',
      artifacts: [{ name: 'empty.bin', content: new Uint8Array(0) }],
    });
    const empty = published.artifacts[0]?.sha256 ?? '';
    const res = await artifact({ range: 'bytes=-5' }, empty);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers several ranges as multipart/byteranges (docs/PROTOCOL.md §2.4)', async () => {
    const res = await artifact({ range: 'bytes=0-1,5-6' });
    expect(res.status).toBe(206);
    const type = res.headers.get('content-type') ?? '';
    const boundary = /boundary=(\S+)/.exec(type)?.[1] ?? '';
    expect(type.startsWith('multipart/byteranges')).toBe(true);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(Number(res.headers.get('content-length')));
    const text = body.toString('latin1');
    expect(text.split(`--${boundary}`).length).toBe(4);
    expect(text).toContain('Content-Range: bytes 0-1/1000');
    expect(text).toContain('Content-Range: bytes 5-6/1000');
    expect(text.endsWith(`--${boundary}--\r\n`)).toBe(true);
  });

  it('answers overlapping or unordered ranges with the whole blob (200)', async () => {
    const res = await artifact({ range: 'bytes=5-6,0-1' });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(1000);
  });

  it('honours If-Range with the matching ETag', async () => {
    const res = await artifact({ range: 'bytes=0-9', 'if-range': etag });
    expect(res.status).toBe(206);
    await res.arrayBuffer();
  });

  it('sends the whole blob when If-Range does not match', async () => {
    const res = await artifact({ range: 'bytes=0-9', 'if-range': `"${'0'.repeat(64)}"` });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(1000);
  });

  it('answers If-None-Match with the ETag with 304', async () => {
    const res = await artifact({ 'if-none-match': etag });
    expect(res.status).toBe(304);
  });

  it('answers If-None-Match with the weak form of the ETag with 304 (RFC 9110 §13.1.2)', async () => {
    const res = await artifact({ 'if-none-match': `"other", W/${etag}` });
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe(etag);
  });

  it('sends the blob when If-None-Match names only other tags', async () => {
    const res = await artifact({ 'if-none-match': `W/"other", "${'0'.repeat(64)}"` });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(1000);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await artifact({}, sha, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('1000');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers an unknown digest with 404 ARTIFACT_NOT_FOUND', async () => {
    const res = await artifact({}, 'f'.repeat(64));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ ok: false, code: 'ARTIFACT_NOT_FOUND' });
  });

  it('answers a malformed digest with 400 BAD_DIGEST', async () => {
    const res = await artifact({}, 'F'.repeat(64));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, code: 'BAD_DIGEST' });
  });

  it('refuses a request without a key with 401 MISSING_MACHINE_KEY', async () => {
    const res = await fetch(`${server.url}/api/updates/artifacts/${sha}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'MISSING_MACHINE_KEY' });
  });

  it('refuses a malformed Authorization header with 401 INVALID_MACHINE_KEY', async () => {
    const res = await fetch(`${server.url}/api/updates/artifacts/${sha}`, {
      headers: { authorization: `Token ${key}` },
    });
    expect(await res.json()).toMatchObject({ code: 'INVALID_MACHINE_KEY' });
  });

  it('refuses an inactive subscription with 401 SUBSCRIPTION_INACTIVE', async () => {
    const res = await artifact({ authorization: `Bearer ${inactiveKey}` });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'SUBSCRIPTION_INACTIVE' });
  });

  it('refuses before revealing whether a digest exists', async () => {
    const res = await fetch(`${server.url}/api/updates/artifacts/${'f'.repeat(64)}`);
    expect(res.status).toBe(401);
  });
});

describe('file descriptors', () => {
  const openFds = async (): Promise<number> => (await readdir('/proc/self/fd')).length;

  it.runIf(process.platform === 'linux')(
    'closes every blob descriptor it opens (HEAD, 304, 416, full, range)',
    async () => {
      // Warm up keep-alive sockets first so that only blob descriptors could grow.
      await (await artifact()).arrayBuffer();
      const before = await openFds();
      for (let i = 0; i < 40; i++) {
        await (await artifact({}, sha, 'HEAD')).arrayBuffer();
        await (await artifact({ 'if-none-match': etag })).arrayBuffer();
        await (await artifact({ range: 'bytes=5000-' })).arrayBuffer();
        await (await artifact({ range: 'bytes=0-9' })).arrayBuffer();
        await (await artifact()).arrayBuffer();
      }
      expect(await openFds()).toBeLessThanOrEqual(before + 4);
    },
  );
});

describe('one-shot faults on a real port', () => {
  it('truncate_bytes sends that many body bytes of the artifact, then cuts the connection', async () => {
    server.faults.add({ route: 'GET /api/updates/artifacts/:sha256', truncate_bytes: 100 });
    const cut = await rawGet(`/api/updates/artifacts/${sha}`);
    expect(cut).toEqual({ status: 200, bytes: 100, aborted: true });
    const whole = await rawGet(`/api/updates/artifacts/${sha}`);
    expect(whole).toEqual({ status: 200, bytes: 1000, aborted: false });
  });

  it('truncate_bytes works on a JSON route', async () => {
    server.faults.add({ route: '/api/updates/manifest', truncate_bytes: 7 });
    const cut = await rawGet('/api/updates/manifest');
    expect(cut).toEqual({ status: 200, bytes: 7, aborted: true });
  });

  it('drop destroys the socket without an answer', async () => {
    server.faults.add({ route: 'GET /api/updates/manifest', drop: true });
    const dropped = await rawGet('/api/updates/manifest');
    expect(dropped).toEqual({ status: undefined, bytes: 0, aborted: true });
  });

  it('delay_ms holds the answer back, then answers normally', async () => {
    server.faults.add({ route: 'GET /healthz', delay_ms: 30 });
    const t0 = performance.now();
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });

  it('is armed through POST /api/dev/faults as well', async () => {
    const armed = await postJsonTo(`${server.url}/api/dev/faults`, {
      route: 'GET /api/updates/manifest',
      status: 503,
      retry_after_s: 3,
    });
    expect(armed.status).toBe(200);
    const res = await fetch(`${server.url}/api/updates/manifest`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('3');
  });
});

describe('in-process handle', () => {
  it('publishes from a file path by streaming it into the blob store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'server-artifacts-'));
    try {
      const big = Buffer.alloc(3 * 1024 * 1024, 7);
      await writeFile(join(dir, 'big.bin'), big);
      const result = await server.publish({
        registry_version: '1.1.0',
        artifacts: [{ name: 'big.bin', path: join(dir, 'big.bin') }],
      });
      const digest = createHash('sha256').update(big).digest('hex');
      expect(result.artifacts[0]).toMatchObject({ size: big.length, sha256: digest });
      const res = await artifact({}, digest);
      const got = Buffer.from(await res.arrayBuffer());
      expect(createHash('sha256').update(got).digest('hex')).toBe(digest);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exposes the other areas\u2019 api objects', () => {
    expect(server.oauth).toBeDefined();
    expect(server.chain).toBeDefined();
    expect(server.nodePubkey).toMatch(/^[0-9a-f]{64}$/);
  });
});
