/**
 * Request targets without a URL per request (src/node/http/request-target.ts): whichever way a URL
 * takes, the options are those node would derive from `new URL` (urlToHttpOptions).
 */
import { urlToHttpOptions } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RequestTargets } from '#node/http/request-target.js';

function viaParser(url: string): Record<string, unknown> {
  const o = urlToHttpOptions(new URL(url));
  return {
    secure: o.protocol === 'https:',
    hostname: o.hostname,
    port: o.port === undefined ? '' : String(o.port),
    path: o.path,
    ...(o.auth === undefined ? {} : { auth: o.auth }),
  };
}

const URLS = [
  'http://127.0.0.1:8080/v1/blobs/ab/cd?x=1',
  'https://updates.example/v1/a',
  // Right after an origin they begin with: not taken for it.
  'https://updates.example.org/v1/a',
  'https://updates.example/v1/b',
  'https://updates.example:8443/v1/a',
  'https://updates.example/v1/a#frag',
  'https://updates.example/v1/a?q=1#frag',
  'https://updates.example:443/v1/a',
  'http://updates.example:80/v1/a',
  'https://UPDATES.example/v1/A',
  'https://updates.example/v1/./a/../b',
  'https://updates.example/v1/%2e%2E/b',
  'https://updates.example/v1/.hidden/a..b',
  'https://updates.example/v1/a b',
  "https://updates.example/v1/a?q='x'",
  'https://updates.example/v1\\a',
  'https://updates.example/v1/%41%zz',
  'https://user:p%40ss@updates.example/v1/a',
  'https://updates.example?q/x',
  'http://[::1]:9000/v1/a',
  'https://updates.example/v1/é',
];

describe('RequestTargets', () => {
  it('gives what urlToHttpOptions gives, twice over (the origin then known)', () => {
    const targets = new RequestTargets();
    for (let pass = 0; pass < 2; pass++) {
      for (const url of URLS) expect({ ...targets.of(url) }, url).toEqual(viaParser(url));
    }
  });

  it('refuses a scheme other than http and https as NETWORK', () => {
    expect(() => new RequestTargets().of('ftp://updates.example/a')).toThrow(
      expect.objectContaining({ code: 'NETWORK' }),
    );
  });

  it('throws the parser error for a URL that does not parse', () => {
    expect(() => new RequestTargets().of('http://')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_URL' }),
    );
  });
});
