/**
 * Artifact URLs without a parse per artifact (src/core/transfer/artifact-url.ts): whichever way a URL
 * takes, the answer is resolveArtifactUrl's.
 */
import { describe, expect, it } from 'vitest';
import { ArtifactUrls } from '#core/transfer/artifact-url.js';
import { resolveArtifactUrl } from '#protocol/manifest.js';

const BASES = [
  'https://updates.example/v1',
  'https://updates.example/v1/',
  'http://127.0.0.1:8080/v1',
  'https://updates.example/v1?tenant=a',
  'https://user@updates.example/v1',
  'https://UPDATES.example/v1',
  'https://updates.example/v 1',
];

const URLS = [
  'blobs/ab/cdef',
  'a%20b/c',
  'a%zz',
  'x/./y',
  'x/../y',
  '../y',
  '%2e%2E/y',
  'x/%2e',
  '.hidden/a..b',
  '/absolute/path',
  '//other.example/x',
  'https://mirror.example/blobs/a',
  'a?q=1',
  'a#f',
  'a b',
  'a\\b',
  'a//b',
  'é',
];

describe('ArtifactUrls', () => {
  it('resolves every URL as resolveArtifactUrl does', () => {
    for (const base of BASES) {
      const urls = new ArtifactUrls(base);
      for (const url of URLS) {
        expect(urls.resolve(url), `${base} + ${url}`).toBe(resolveArtifactUrl(base, url).href);
      }
    }
  });

  it('refuses what resolveArtifactUrl refuses', () => {
    const urls = new ArtifactUrls('https://updates.example/v1');
    expect(() => urls.resolve('file:///etc/passwd')).toThrow(
      expect.objectContaining({ code: 'MANIFEST_MALFORMED' }),
    );
  });
});
