import { describe, expect, it, vi } from 'vitest';
import { fetchActivity, parseActivity } from '#app/activity-client.js';

const BODY = {
  ok: true,
  window: 60,
  limit: 10,
  unit_ms: 783.33,
  as_of_unit: 12,
  generated_at: '2026-01-01T00:00:00.000Z',
  machines: [
    { rank: 1, id: 'm1', name: 'alpha', transitions: 9 },
    { rank: 2, id: 'm2', name: 'beta', transitions: 4 },
  ],
};

function respond(body: BodyInit | null, init: ResponseInit = { status: 200 }) {
  return vi.fn((_url: URL | RequestInfo, _init?: RequestInit) =>
    Promise.resolve(new Response(body, init)),
  );
}

describe('activity client', () => {
  it('asks GET /api/chain/active with limit=10 and series=1 and returns the ranking', async () => {
    const fetch = respond(JSON.stringify(BODY));
    const result = await fetchActivity({ baseUrl: 'http://127.0.0.1:9', fetch });
    expect((fetch.mock.calls[0]?.[0] as URL).href).toBe(
      'http://127.0.0.1:9/api/chain/active?limit=10&series=1',
    );
    expect(result).toEqual({
      state: 'ok',
      machines: BODY.machines,
      generatedAt: BODY.generated_at,
      windowUnits: 60,
      unitMs: BODY.unit_ms,
    });
  });

  it('reads a missing or nonsensical unit_ms as 0 (the window then shows units only)', () => {
    for (const unit_ms of [undefined, 0, -5, 'fast']) {
      const result = parseActivity(JSON.stringify({ ...BODY, unit_ms }), 10);
      expect(result).toMatchObject({ state: 'ok', unitMs: 0 });
    }
  });

  it('reports offline when the connection fails', async () => {
    const fetch = vi.fn(() => Promise.reject(new TypeError('fetch failed')));
    expect(await fetchActivity({ baseUrl: 'http://127.0.0.1:9', fetch })).toMatchObject({
      state: 'offline',
    });
  });

  it('reports an error with HTTP_STATUS on a non-200 answer', async () => {
    const fetch = respond('oops', { status: 503 });
    expect(await fetchActivity({ baseUrl: 'http://x.test', fetch })).toMatchObject({
      state: 'error',
      code: 'HTTP_STATUS',
    });
  });

  it('refuses a body above the size cap (TOO_LARGE)', async () => {
    const fetch = respond(JSON.stringify({ ...BODY, pad: 'x'.repeat(5000) }));
    expect(
      await fetchActivity({ baseUrl: 'http://x.test', fetch, maxBodyBytes: 1024 }),
    ).toMatchObject({
      state: 'error',
      code: 'TOO_LARGE',
    });
  });

  it('times out a silent server as offline', async () => {
    const fetch = vi.fn((_url: URL | RequestInfo, init?: RequestInit) => {
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      });
    });
    expect(await fetchActivity({ baseUrl: 'http://x.test', fetch, timeoutMs: 5 })).toMatchObject({
      state: 'offline',
    });
  });

  it('refuses malformed JSON (MALFORMED)', () => {
    expect(parseActivity('{not json', 10)).toMatchObject({ state: 'error', code: 'MALFORMED' });
  });

  it('refuses a machine entry with a wrong type (MALFORMED)', () => {
    const bad = { ...BODY, machines: [{ rank: 1, id: 'm', name: 7, transitions: 1 }] };
    expect(parseActivity(JSON.stringify(bad), 10)).toMatchObject({ code: 'MALFORMED' });
  });

  it('refuses a body without ok: true (MALFORMED)', () => {
    expect(parseActivity(JSON.stringify({ ...BODY, ok: false }), 10)).toMatchObject({
      code: 'MALFORMED',
    });
  });

  it("keeps each machine's series (docs/PROTOCOL.md §5) and refuses a malformed one", () => {
    const withSeries = {
      ...BODY,
      machines: [{ rank: 1, id: 'm1', name: 'alpha', transitions: 3, series: [0, 1, 2] }],
    };
    const result = parseActivity(JSON.stringify(withSeries), 10);
    expect(result.state === 'ok' ? result.machines[0]?.series : null).toEqual([0, 1, 2]);
    for (const series of [[-1], [1.5], ['2'], new Array(61).fill(0), 'up', null]) {
      const bad = { ...BODY, machines: [{ rank: 1, id: 'm', name: 'n', transitions: 1, series }] };
      expect(parseActivity(JSON.stringify(bad), 10)).toMatchObject({ code: 'MALFORMED' });
    }
  });

  it('keeps at most `limit` machines even if the server sends more', () => {
    const many = Array.from({ length: 15 }, (_, i) => ({
      rank: i + 1,
      id: `m${i}`,
      name: `n${i}`,
      transitions: 100 - i,
    }));
    const result = parseActivity(JSON.stringify({ ...BODY, machines: many }), 10);
    expect(result.state === 'ok' ? result.machines.length : -1).toBe(10);
  });
});
