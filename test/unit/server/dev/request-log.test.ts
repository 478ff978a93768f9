import { describe, expect, it } from 'vitest';
import { ServerClock } from '#server/platform/clock.js';
import { MAX_ENTRIES, redactHeaders, redactUrl, RequestLog } from '#server/dev/request-log.js';

describe('request log redaction', () => {
  it('redacts token, code and secret query values and keeps the others', () => {
    expect(redactUrl('/cb?code=abc&state=s&access_token=t&client_secret=x')).toBe(
      '/cb?code=[redacted]&state=s&access_token=[redacted]&client_secret=[redacted]',
    );
  });
  it('leaves a URL without a query alone', () => {
    expect(redactUrl('/api/updates/manifest')).toBe('/api/updates/manifest');
  });
  it('redacts an encoded secret key name', () => {
    expect(redactUrl('/x?%74oken=abc')).toBe('/x?%74oken=[redacted]');
  });
  it('redacts Authorization and Cookie headers', () => {
    expect(redactHeaders({ authorization: 'Bearer mk_x', cookie: 'a=b', host: 'h' })).toEqual({
      authorization: '[redacted]',
      cookie: '[redacted]',
      host: 'h',
    });
  });
});

describe('RequestLog', () => {
  const entry = {
    at: '',
    method: 'GET',
    url: '/',
    route: '/',
    status: 200,
    duration_ms: 1,
    headers: {},
    body_bytes: 0,
  };
  it(`keeps at most ${MAX_ENTRIES} entries, dropping the oldest`, () => {
    const log = new RequestLog(new ServerClock(() => 0));
    for (let i = 0; i < MAX_ENTRIES + 5; i++) log.record(entry);
    const list = log.list();
    expect(list).toHaveLength(MAX_ENTRIES);
    expect(list[0]?.seq).toBe(6);
  });
  it('lists only entries after a sequence number', () => {
    const log = new RequestLog(new ServerClock(() => 0));
    for (let i = 0; i < 3; i++) log.record(entry);
    expect(log.list(2).map((e) => e.seq)).toEqual([3]);
  });
});
