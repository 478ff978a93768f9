import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileMetadataStore, HttpBytesFetcher, requestTarget } from '#node/tuf/index.js';

describe('FileMetadataStore', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tuf-store-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes, reads and removes bytes by role name, byte for byte', async () => {
    const store = new FileMetadataStore(dir);
    const bytes = new TextEncoder().encode('{"signed": {}} ');
    await store.write('timestamp', bytes);
    expect(await readFile(join(dir, 'timestamp.json'))).toEqual(Buffer.from(bytes));
    expect(await store.read('timestamp')).toEqual(bytes);
    await store.remove('timestamp');
    expect(await store.read('timestamp')).toBeUndefined();
    await store.remove('timestamp');
  });

  it('keeps a role named "../x" or "a/b" inside its directory, one file each', async () => {
    const store = new FileMetadataStore(dir);
    await store.write('../x', new Uint8Array([1]));
    await store.write('a/b', new Uint8Array([2]));
    expect((await readdir(dir)).sort()).toEqual(['..%2Fx.json', 'a%2Fb.json']);
    expect(await store.read('../x')).toEqual(new Uint8Array([1]));
  });
});

describe('HttpBytesFetcher (loopback)', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') res.end('hello');
      else if (req.url === '/big') res.end('x'.repeat(1000));
      else if (req.url === '/stream') {
        res.write('x'.repeat(600));
        res.end('x'.repeat(600));
      } else if (req.url === '/forbidden') res.writeHead(403).end();
      else if (req.url === '/a/../b%20c') res.end('raw path');
      else if (req.url === '/error') res.writeHead(500).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const fetcher = new HttpBytesFetcher({ timeoutMs: 5000 });

  it('returns the body', async () => {
    expect(Buffer.from(await fetcher.get(`${base}/ok`, 100)).toString()).toBe('hello');
  });

  it('maps 404 and 403 to NOT_FOUND', async () => {
    await expect(fetcher.get(`${base}/missing`, 100)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(fetcher.get(`${base}/forbidden`, 100)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('maps other statuses to FETCH_FAILED', async () => {
    await expect(fetcher.get(`${base}/error`, 100)).rejects.toMatchObject({ code: 'FETCH_FAILED' });
  });

  it('refuses a declared length over the cap (TOO_LARGE)', async () => {
    await expect(fetcher.get(`${base}/big`, 999)).rejects.toMatchObject({ code: 'TOO_LARGE' });
  });

  it('refuses a streamed body over the cap (TOO_LARGE)', async () => {
    await expect(fetcher.get(`${base}/stream`, 1000)).rejects.toMatchObject({ code: 'TOO_LARGE' });
  });

  it('sends the path as written, only encoding what HTTP cannot carry', async () => {
    expect(requestTarget('http://h:1/a/../b c').path).toBe('/a/../b%20c');
    expect(Buffer.from(await fetcher.get(`${base}/a/../b c`, 100)).toString()).toBe('raw path');
  });

  it('maps a refused connection to FETCH_FAILED', async () => {
    await expect(fetcher.get('http://127.0.0.1:1/x', 100)).rejects.toMatchObject({
      code: 'FETCH_FAILED',
    });
  });
});
