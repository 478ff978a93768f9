import { describe, expect, it } from 'vitest';
import {
  CHAIN_ERROR_CODES,
  isServerErrorCode,
  OAUTH_ERROR_CODES,
  SERVER_ERROR_CODES,
  ServerErrorCode,
} from '#protocol/server-error-code.js';

describe('the server error code table (docs/PROTOCOL.md §1)', () => {
  it('lists every code once, in UPPER_SNAKE_CASE', () => {
    expect(new Set(SERVER_ERROR_CODES).size).toBe(SERVER_ERROR_CODES.length);
    for (const code of SERVER_ERROR_CODES) expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });

  it('names each code by itself, so a comparison cannot be misspelt', () => {
    expect(Object.keys(ServerErrorCode).sort()).toEqual([...SERVER_ERROR_CODES].sort());
    for (const code of SERVER_ERROR_CODES) expect(ServerErrorCode[code]).toBe(code);
    expect(ServerErrorCode.SUBSCRIPTION_INACTIVE).toBe('SUBSCRIPTION_INACTIVE');
    expect(Object.isFrozen(ServerErrorCode)).toBe(true);
  });

  it('includes each area table', () => {
    for (const code of [...CHAIN_ERROR_CODES, ...OAUTH_ERROR_CODES]) {
      expect(isServerErrorCode(code)).toBe(true);
    }
  });

  it('tells a known code from anything else', () => {
    expect(isServerErrorCode('NO_RELEASE')).toBe(true);
    expect(isServerErrorCode('NO_SUCH_CODE')).toBe(false);
    expect(isServerErrorCode('no_release')).toBe(false);
    expect(isServerErrorCode('toString')).toBe(false);
  });
});
