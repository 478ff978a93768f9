import { describe, expect, it } from 'vitest';
import { parseEndpoint, requireEndpoint } from '#core/transfer/endpoint.js';

function code(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return undefined;
}

describe('parseEndpoint', () => {
  it('keeps a base path prefix (adds the trailing slash)', () => {
    const endpoint = parseEndpoint('http://updates.test/prefix', 'mk');
    expect(new URL('api/updates/manifest', endpoint.base).href).toBe(
      'http://updates.test/prefix/api/updates/manifest',
    );
  });

  it('refuses a base URL that is not http(s) (CONFIG_INVALID)', () => {
    expect(code(() => parseEndpoint('ftp://updates.test/', 'mk'))).toBe('CONFIG_INVALID');
  });

  it('refuses a base URL that does not parse (CONFIG_INVALID)', () => {
    expect(code(() => parseEndpoint('not a url', 'mk'))).toBe('CONFIG_INVALID');
  });
});

describe('requireEndpoint', () => {
  it('refuses a network run without a base URL (CONFIG_INVALID)', () => {
    expect(code(() => requireEndpoint(undefined))).toBe('CONFIG_INVALID');
  });

  it('refuses a network run without a machine key (CONFIG_INVALID)', () => {
    expect(code(() => requireEndpoint(parseEndpoint('https://u.test', '')))).toBe('CONFIG_INVALID');
  });
});
