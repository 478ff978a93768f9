/**
 * Body parsing of the OAuth endpoints (docs/OAUTH.md §The rules, T-01, T-04, T-05, T-07).
 */
import { expect, it } from 'vitest';
import {
  mediaType,
  optionalString,
  parseForm,
  parseOAuthBody,
} from '#server/oauth/oauth-params.js';

it('T-01 media types ignore parameters and case', () => {
  expect(mediaType('Application/X-WWW-Form-Urlencoded; charset=UTF-8')).toBe(
    'application/x-www-form-urlencoded',
  );
  expect(mediaType(undefined)).toBeUndefined();
});

it('T-01 form bodies decode + as a space', () => {
  expect(parseForm('scope=openid+profile')['scope']).toBe('openid profile');
});

it('T-07 a repeated form name is refused', () => {
  expect(() => parseForm('a=1&a=2')).toThrow(
    expect.objectContaining({ code: 'DUPLICATE_PARAMETER' }) as Error,
  );
});

it('T-07 a repeated name that differs only in case is two parameters', () => {
  expect(parseForm('a=1&A=2')).toMatchObject({ a: '1', A: '2' });
});

it('__proto__ is a plain key, never a prototype change', () => {
  const params = parseOAuthBody({ contentType: 'application/json', text: '{"__proto__":{"x":1}}' });
  expect(Object.getPrototypeOf(params)).toBeNull();
  expect((params as Record<string, unknown>)['x']).toBeUndefined();
});

it('no body and no content type is an empty parameter set', () => {
  expect(Object.keys(parseOAuthBody({ contentType: undefined, text: undefined }))).toEqual([]);
});

it('T-04 an empty string is treated as omitted', () => {
  expect(optionalString({ code: '' }, 'code')).toBeUndefined();
});

it('T-05 a number is refused, never coerced', () => {
  expect(() => optionalString({ code: 5 }, 'code')).toThrow(
    expect.objectContaining({ code: 'PARAMETER_NOT_STRING' }) as Error,
  );
});
