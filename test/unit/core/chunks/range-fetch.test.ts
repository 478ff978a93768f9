import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import type { HttpContext } from '#core/transfer/http-get.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import { fetchPieces, type SourceFailure, type VerifiedPiece } from '#core/chunks/range-fetch.js';
import { UpdateError } from '#core/errors.js';
import {
  FakeTime,
  ScriptedFetcher,
  text,
  type ScriptedResponse,
  type SeenRequest,
} from '#test/fakes.js';

const RESOURCE = Uint8Array.from({ length: 40_000 }, (_x, i) => (i * 7 + (i >> 8)) & 0xff);
const digest = (b: Uint8Array): Uint8Array => createHash('sha256').update(b).digest();
const piece = (offset: number, length: number): VerifiedPiece => ({
  offset,
  length,
  sha256: digest(RESOURCE.subarray(offset, offset + length)),
});
// Two pieces merged into one range (adjacent), one far away in its own range.
const PIECES = [piece(0, 5000), piece(5000, 5000), piece(30_000, 4000)];
const PRIMARY = 'http://primary.test/blob';
const MIRROR = 'http://mirror.test/blob';

const BOUNDARY = 'test-boundary';

/** Serves RESOURCE honouring Range: one range as 206, several as multipart/byteranges. */
function serve(req: SeenRequest, corruptAt?: number, multi = true): ScriptedResponse {
  const spec = /^bytes=(.*)$/.exec(req.headers['range'] ?? '')?.[1];
  if (spec === undefined) return { chunks: [RESOURCE] };
  const ranges = spec.split(',').map((r) => r.split('-').map(Number) as [number, number]);
  const body = (start: number, end: number): Uint8Array => {
    const bytes = Uint8Array.from(RESOURCE.subarray(start, end + 1));
    if (corruptAt !== undefined && corruptAt >= start && corruptAt <= end) {
      bytes[corruptAt - start] = (bytes[corruptAt - start] as number) ^ 0xff;
    }
    return bytes;
  };
  if (ranges.length > 1 && !multi) return { chunks: [RESOURCE] };
  if (ranges.length === 1) {
    const [[start, end] = [0, 0]] = ranges;
    const bytes = body(start, end);
    return {
      status: 206,
      headers: {
        'content-range': `bytes ${start}-${end}/${RESOURCE.length}`,
        'content-length': String(bytes.length),
      },
      // Arrives in uneven slices, so pieces straddle network chunks.
      chunks: [bytes.subarray(0, 777), bytes.subarray(777, 6000), bytes.subarray(6000)],
    };
  }
  const parts: Uint8Array[] = [];
  for (const [start, end] of ranges) {
    parts.push(
      text(
        `\r\n--${BOUNDARY}\r\nContent-Type: application/octet-stream\r\n` +
          `Content-Range: bytes ${start}-${end}/${RESOURCE.length}\r\n\r\n`,
      ),
      body(start, end),
    );
  }
  parts.push(text(`\r\n--${BOUNDARY}--\r\n`));
  const all = Buffer.concat(parts);
  return {
    status: 206,
    headers: { 'content-type': `multipart/byteranges; boundary=${BOUNDARY}` },
    chunks: [all.subarray(0, 100), all.subarray(100, 7000), all.subarray(7000)],
  };
}

async function run(handler: (req: SeenRequest) => ScriptedResponse, sources = [PRIMARY, MIRROR]) {
  const fetcher = new ScriptedFetcher(handler);
  const time = new FakeTime();
  const http: HttpContext = {
    fetcher,
    clock: time,
    timers: time,
    limits: { ...DEFAULT_LIMITS, parallel: 1, retries: 1, retryBaseDelayMs: 0, retryMaxDelayMs: 0 },
    endpoint: parseEndpoint('http://primary.test', 'mk'),
    userAgent: 'test',
  };
  const got: { offset: number; bytes: Uint8Array }[] = [];
  const failures: SourceFailure[] = [];
  let error: unknown;
  let settled = false;
  const work = (async () => {
    await fetchPieces(
      {
        http,
        random: () => 0,
        signal: new AbortController().signal,
        sources: sources.map((s) => new URL(s)),
        resourceSize: RESOURCE.length,
        what: 'test blob',
        onSourceFailure: (f) => failures.push(f),
      },
      PIECES,
      (p, bytes) => {
        got.push({ offset: p.offset, bytes: Uint8Array.from(bytes) });
        return Promise.resolve();
      },
    );
  })()
    .catch((e: unknown) => {
      error = e;
    })
    .finally(() => {
      settled = true;
    });
  // Retry backoffs wait on the fake timers: move time on a millisecond per turn until done.
  while (!settled) {
    await new Promise((resolve) => setImmediate(resolve));
    time.advance(1);
  }
  await work;
  return { fetcher, got, failures, error };
}

const offsets = (got: { offset: number }[]): number[] => got.map((g) => g.offset);

describe('fetchPieces (docs/UPDATER.md §9)', () => {
  it('fetches coalesced ranges and hands on each verified piece', async () => {
    const { fetcher, got, error } = await run((req) => serve(req));
    expect(error).toBeUndefined();
    // Both ranges in one request, answered as multipart/byteranges.
    expect(fetcher.seen.map((r) => r.headers['range'])).toEqual(['bytes=0-9999,30000-33999']);
    expect(offsets(got)).toEqual([0, 5000, 30_000]);
    for (const g of got) {
      expect(g.bytes).toEqual(RESOURCE.subarray(g.offset, g.offset + g.bytes.length));
    }
  });

  it('rejects a tampered range at once and fetches only the refused rest from the next mirror', async () => {
    const { fetcher, got, failures, error } = await run((req) =>
      req.url === PRIMARY ? serve(req, 7000) : serve(req),
    );
    expect(error).toBeUndefined();
    expect(fetcher.seen.map((r) => `${r.url} ${r.headers['range']}`)).toEqual([
      `${PRIMARY} bytes=0-9999,30000-33999`,
      // The first piece was verified and kept; only the tampered one on is asked again.
      `${MIRROR} bytes=5000-9999,30000-33999`,
    ]);
    expect(failures).toEqual([{ url: PRIMARY, code: 'HASH_MISMATCH', piece: PIECES[1] }]);
    expect(offsets(got)).toEqual([0, 5000, 30_000]);
    expect(got[1]?.bytes).toEqual(RESOURCE.subarray(5000, 10_000));
  });

  it('with one source, retries a tampered piece once, then refuses with HASH_MISMATCH', async () => {
    const once = await run(
      (() => {
        let first = true;
        return (req: SeenRequest) => {
          const r = serve(req, first ? 1 : undefined);
          first = false;
          return r;
        };
      })(),
      [PRIMARY],
    );
    expect(once.error).toBeUndefined();
    expect(offsets(once.got)).toEqual([0, 5000, 30_000]);

    const always = await run((req) => serve(req, 1), [PRIMARY]);
    expect(always.error).toBeInstanceOf(UpdateError);
    expect((always.error as UpdateError).code).toBe('HASH_MISMATCH');
    expect(always.got).toEqual([]);
  });

  it('refuses from every source: HASH_MISMATCH, nothing unverified handed on', async () => {
    const { error, got } = await run((req) => serve(req, 6000));
    expect((error as UpdateError).code).toBe('HASH_MISMATCH');
    expect(offsets(got)).toEqual([0]);
  });

  it('leaves a source that ignores Range (200) for the next one', async () => {
    const { fetcher, error, failures } = await run((req) =>
      req.url === PRIMARY ? { status: 200, chunks: [RESOURCE] } : serve(req),
    );
    expect(error).toBeUndefined();
    expect(failures[0]?.code).toBe('HTTP_STATUS');
    // First asked for both ranges at once, then for one: two answers of 200 before the mirror.
    expect(fetcher.seen.filter((r) => r.url === PRIMARY).length).toBe(2);
    expect(fetcher.seen.filter((r) => r.url === MIRROR).length).toBe(1);
  });

  it('asks one range at a time from a source that answers several with the whole blob', async () => {
    const { fetcher, got, error, failures } = await run((req) => serve(req, undefined, false));
    expect(error).toBeUndefined();
    expect(failures).toEqual([]);
    expect(fetcher.seen.map((r) => r.headers['range'])).toEqual([
      'bytes=0-9999,30000-33999',
      'bytes=0-9999',
      'bytes=30000-33999',
    ]);
    expect(offsets(got)).toEqual([0, 5000, 30_000]);
  });

  it('asks again for the ranges an answer left out (a server that sends only the first)', async () => {
    const { fetcher, got, error } = await run((req) => {
      const first = /^bytes=(\d+-\d+)/.exec(req.headers['range'] ?? '')?.[1] ?? '';
      return serve({ ...req, headers: { range: `bytes=${first}` } });
    });
    expect(error).toBeUndefined();
    expect(fetcher.seen.map((r) => r.headers['range'])).toEqual([
      'bytes=0-9999,30000-33999',
      'bytes=30000-33999',
    ]);
    expect(offsets(got)).toEqual([0, 5000, 30_000]);
  });

  it('leaves a source that answers another range for the next one', async () => {
    const { error, failures } = await run((req) =>
      req.url === PRIMARY
        ? { ...serve(req), headers: { 'content-type': `multipart/byteranges; boundary=other` } }
        : serve(req),
    );
    expect(error).toBeUndefined();
    expect(failures[0]?.code).toBe('SIZE_MISMATCH');
  });

  it('retries a dropped connection without asking again for the pieces it already had', async () => {
    let dropped = false;
    const { fetcher, got, error } = await run((req) => {
      const r = serve(req);
      if (!dropped) {
        dropped = true;
        const cut = Buffer.concat(r.chunks ?? []).subarray(0, 6200);
        return { ...r, chunks: [cut], failAfter: new Error('reset') };
      }
      return r;
    });
    expect(error).toBeUndefined();
    expect(fetcher.seen.map((r) => r.headers['range'])).toEqual([
      'bytes=0-9999,30000-33999',
      'bytes=5000-9999,30000-33999',
    ]);
    expect(offsets(got)).toEqual([0, 5000, 30_000]);
  });
});
