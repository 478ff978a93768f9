import { describe, expect, it } from 'vitest';
import { fetchManifest } from '#core/trust/fetch-manifest.js';
import { NO_HEADERS, startGet } from '#core/transfer/http-get.js';
import { type Limits } from '#core/limits.js';
import {
  ScriptedFetcher,
  text,
  type ScriptedResponse,
  type SeenRequest,
  httpContextOf,
} from '#test/fakes.js';

const BASE = new URL('http://updates.test/');

function ctx(
  handler: (req: SeenRequest) => ScriptedResponse,
  limits: Partial<Limits> = {},
  base = BASE.href,
) {
  return httpContextOf(new ScriptedFetcher(handler), limits, base);
}

const signal = new AbortController().signal;

describe('fetchManifest', () => {
  it('GETs api/updates/manifest with the bearer machine key', async () => {
    const { http, fetcher } = ctx(() => ({ chunks: [text('{"a":'), text('1}')] }));
    const bytes = await fetchManifest(http, signal);
    expect(new TextDecoder().decode(bytes)).toBe('{"a":1}');
    expect(fetcher.seen[0]?.url).toBe('http://updates.test/api/updates/manifest');
    expect(fetcher.seen[0]?.headers['authorization']).toBe('Bearer mk-secret');
    // The manifest alone offers gzip (docs/PROTOCOL.md §2.7.6, Content coding).
    expect(fetcher.seen[0]?.headers['accept-encoding']).toBe('gzip');
  });

  it('keeps a base path prefix', async () => {
    const { http, fetcher } = ctx(
      () => ({ chunks: [text('{}')] }),
      {},
      'http://updates.test/prefix',
    );
    await fetchManifest(http, signal);
    expect(fetcher.seen[0]?.url).toBe('http://updates.test/prefix/api/updates/manifest');
  });

  it('refuses a declared length over the limit before reading (MANIFEST_TOO_LARGE)', async () => {
    const { http } = ctx(() => ({ headers: { 'content-length': '2000' }, chunks: [text('x')] }), {
      maxManifestBytes: 1000,
    });
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({
      code: 'MANIFEST_TOO_LARGE',
    });
  });

  it('stops reading an endless body at the limit (MANIFEST_TOO_LARGE)', async () => {
    const chunk = new Uint8Array(100);
    const { http } = ctx(() => ({ chunks: Array.from({ length: 1000 }, () => chunk) }), {
      maxManifestBytes: 1000,
    });
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({
      code: 'MANIFEST_TOO_LARGE',
    });
  });

  it('maps 401 INVALID_MACHINE_KEY to UNAUTHORIZED', async () => {
    const { http } = ctx(() => ({
      status: 401,
      chunks: [text('{"ok":false,"code":"INVALID_MACHINE_KEY","error":"no"}')],
    }));
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('maps 401 SUBSCRIPTION_INACTIVE to SUBSCRIPTION_INACTIVE', async () => {
    const { http } = ctx(() => ({
      status: 401,
      chunks: [text('{"ok":false,"code":"SUBSCRIPTION_INACTIVE","error":"lapsed"}')],
    }));
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({
      code: 'SUBSCRIPTION_INACTIVE',
    });
  });

  it('maps 429 to a transient RATE_LIMITED carrying Retry-After', async () => {
    const { http } = ctx(() => ({ status: 429, headers: { 'retry-after': '7' } }));
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterMs: 7000,
      transient: true,
    });
  });

  it('maps 503 to a transient HTTP_STATUS and 404 to a final one', async () => {
    const a = ctx(() => ({ status: 503 }));
    await expect(fetchManifest(a.http, signal)).rejects.toMatchObject({
      code: 'HTTP_STATUS',
      transient: true,
    });
    const b = ctx(() => ({ status: 404 }));
    await expect(fetchManifest(b.http, signal)).rejects.toMatchObject({
      code: 'HTTP_STATUS',
      transient: false,
    });
  });

  it('names the URL and status of a refused answer, never its query or the machine key', async () => {
    // A signed CDN URL carries its secret in the query (and here the machine key, in case).
    const location = 'http://user:pw@updates.test/signed/m.json?token=t&key=mk-secret';
    const { http } = ctx((req) =>
      req.url.endsWith('/manifest') ? { status: 302, headers: { location } } : { status: 404 },
    );
    const error = await fetchManifest(http, signal).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'HTTP_STATUS',
      details: { url: 'http://updates.test/signed/m.json', status: 404 },
    });
    const text = JSON.stringify(error) + String((error as Error).message);
    expect(text).not.toContain('token=t');
    expect(text).not.toContain('mk-secret');
    expect(text).not.toContain('pw');
  });

  it('names the URL of a 401 (UNAUTHORIZED) and of a 429 (RATE_LIMITED)', async () => {
    const a = ctx(() => ({ status: 401, chunks: [text('{}')] }));
    await expect(fetchManifest(a.http, signal)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      details: { url: 'http://updates.test/api/updates/manifest', status: 401 },
    });
    const b = ctx(() => ({ status: 429 }));
    await expect(fetchManifest(b.http, signal)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { status: 429 },
    });
  });

  it('names the URL of a connection dropped mid-body (NETWORK)', async () => {
    const { http } = ctx(() => ({ chunks: [text('{')], failAfter: new Error('ECONNRESET') }));
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({
      code: 'NETWORK',
      details: { url: 'http://updates.test/api/updates/manifest' },
    });
  });

  it('maps a connection dropped mid-body to a transient NETWORK', async () => {
    const { http } = ctx(() => ({ chunks: [text('{')], failAfter: new Error('ECONNRESET') }));
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({
      code: 'NETWORK',
      transient: true,
    });
  });

  it('follows a same-origin redirect with the key', async () => {
    const { http, fetcher } = ctx((req) =>
      req.url.endsWith('/manifest')
        ? { status: 302, headers: { location: '/v2/manifest.json' } }
        : { chunks: [text('{}')] },
    );
    await fetchManifest(http, signal);
    expect(fetcher.seen[1]?.url).toBe('http://updates.test/v2/manifest.json');
    expect(fetcher.seen[1]?.headers['authorization']).toBe('Bearer mk-secret');
  });

  it('never sends the machine key to another origin after a redirect', async () => {
    const { http, fetcher } = ctx((req) =>
      req.url.startsWith('http://updates.test/')
        ? { status: 307, headers: { location: 'http://cdn.example/m.json' } }
        : { chunks: [text('{}')] },
    );
    await fetchManifest(http, signal);
    expect(fetcher.seen[1]?.url).toBe('http://cdn.example/m.json');
    expect(fetcher.seen[1]?.headers['authorization']).toBeUndefined();
  });

  it('refuses a redirect loop after maxRedirects (HTTP_STATUS)', async () => {
    const { http, fetcher } = ctx(() => ({ status: 302, headers: { location: '/again' } }), {
      maxRedirects: 3,
    });
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({ code: 'HTTP_STATUS' });
    expect(fetcher.seen).toHaveLength(4);
  });

  it('refuses a redirect to a non-http scheme (HTTP_STATUS)', async () => {
    const { http } = ctx(() => ({ status: 302, headers: { location: 'file:///etc/passwd' } }));
    await expect(fetchManifest(http, signal)).rejects.toMatchObject({
      code: 'HTTP_STATUS',
      // The URL that redirected, not where it pointed.
      details: { url: 'http://updates.test/api/updates/manifest', status: 302 },
    });
  });
});

describe('startGet with an href (artifact-url.ts)', () => {
  const get = async (url: string) => {
    const { http, fetcher } = ctx(() => ({ chunks: [text('x')] }));
    const exchange = await startGet(http, url, {}, signal, 'artifact a');
    exchange.response.discard();
    exchange.finish();
    return fetcher.seen[0];
  };

  it('sends the machine key to an href on the base origin', async () => {
    const seen = await get('http://updates.test/blobs/a');
    expect(seen?.url).toBe('http://updates.test/blobs/a');
    expect(seen?.headers['authorization']).toBe('Bearer mk-secret');
  });

  it('never sends it to a host that only begins like the base origin, or another port', async () => {
    expect((await get('http://updates.test.evil/a'))?.headers['authorization']).toBeUndefined();
    expect((await get('http://updates.test:8080/a'))?.headers['authorization']).toBeUndefined();
  });

  it('takes an href in a form the parser would not give as another origin', async () => {
    expect((await get('http://u@updates.test/a'))?.headers['authorization']).toBeUndefined();
  });
});

describe('startGet with NO_HEADERS', () => {
  /** The headers objects as handed to the fetcher (the scripted one records copies). */
  const sent = async (urls: string[], extras: Readonly<Record<string, string>>[]) => {
    const { http, fetcher } = ctx(() => ({ chunks: [text('x')] }));
    const headers: Readonly<Record<string, string>>[] = [];
    const get = fetcher.get.bind(fetcher);
    fetcher.get = (url, init) => {
      headers.push(init.headers);
      return get(url, init);
    };
    for (const [i, url] of urls.entries()) {
      const exchange = await startGet(http, url, extras[i] ?? NO_HEADERS, signal, 'artifact a');
      exchange.response.discard();
      exchange.finish();
    }
    return headers;
  };

  it('reuses one frozen headers object per context and origin side', async () => {
    const [a, b, c] = await sent(
      ['http://updates.test/a', 'http://updates.test/b', 'http://other.test/c'],
      [],
    );
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
    expect(a?.['authorization']).toBe('Bearer mk-secret');
    expect(c).not.toBe(a);
    expect(c?.['authorization']).toBeUndefined();
    expect(c?.['user-agent']).toBe(a?.['user-agent']);
  });

  it('builds a new headers object for extra headers, with them', async () => {
    const url = 'http://updates.test/a';
    const [ranged, plain, again] = await sent(
      [url, url, url],
      [{ range: 'bytes=1-' }, NO_HEADERS, { range: 'bytes=2-' }],
    );
    expect(ranged?.['range']).toBe('bytes=1-');
    expect(plain?.['range']).toBeUndefined();
    expect(again?.['range']).toBe('bytes=2-');
    expect(Object.isFrozen(ranged)).toBe(false);
    expect(again).not.toBe(ranged);
  });
});
