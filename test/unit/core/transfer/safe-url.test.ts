import { describe, expect, it } from 'vitest';
import { safeUrl } from '#core/transfer/safe-url.js';

describe('safeUrl', () => {
  it('keeps scheme, host, port and path', () => {
    expect(safeUrl('https://updates.example:8443/prefix/api/updates/manifest')).toBe(
      'https://updates.example:8443/prefix/api/updates/manifest',
    );
  });

  it('drops the query, the fragment and any user:password', () => {
    expect(safeUrl(new URL('https://bob:pw@cdn.example/blob?X-Amz-Signature=abc&key=k#frag'))).toBe(
      'https://cdn.example/blob',
    );
  });

  it('redacts a secret wherever it still appears, raw or percent-encoded', () => {
    expect(safeUrl('http://x/keys/mk-s3cret/blob', ['mk-s3cret'])).toBe(
      'http://x/keys/[redacted]/blob',
    );
    expect(safeUrl('http://x/a%20b%2Fc', ['a b/c'])).toBe('http://x/[redacted]');
    expect(safeUrl('http://x/path', [''])).toBe('http://x/path');
  });

  it('names a string that is not a URL without echoing it', () => {
    expect(safeUrl('not a url mk-s3cret')).toBe('(not a valid URL)');
  });
});
