/** Accept-Encoding for the gzip answer (server/src/http/accept-encoding.ts, RFC 9110 §12.5.3). */
import { describe, expect, it } from 'vitest';
import { acceptsGzip } from '#server/http/accept-encoding.js';

describe('acceptsGzip', () => {
  it('is false without the header (identity only)', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
  });

  it('is true for gzip, x-gzip and lists naming them, in any case and spacing', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('x-gzip')).toBe(true);
    expect(acceptsGzip('br, GZip ;q=0.5 , deflate')).toBe(true);
    expect(acceptsGzip(['br', 'gzip'])).toBe(true);
  });

  it('is false for gzip refused with q=0, whatever else is listed', () => {
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0.000, br')).toBe(false);
    expect(acceptsGzip('*, gzip;q=0')).toBe(false);
  });

  it('takes * for every coding not listed', () => {
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('br, *;q=0.1')).toBe(true);
    expect(acceptsGzip('*;q=0')).toBe(false);
    expect(acceptsGzip('gzip;q=0.2, *;q=0')).toBe(true);
  });

  it('reads a malformed qvalue as a refusal', () => {
    expect(acceptsGzip('gzip;q=2')).toBe(false);
    expect(acceptsGzip('gzip;q=0.0001')).toBe(false);
    expect(acceptsGzip('gzip;q=abc')).toBe(false);
    expect(acceptsGzip('gzip;q=1.000')).toBe(true);
  });

  it('does not take a coding that only contains gzip', () => {
    expect(acceptsGzip('gzipx, notgzip')).toBe(false);
  });
});
