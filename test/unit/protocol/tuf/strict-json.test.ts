import { describe, expect, it } from 'vitest';
import { parseStrictJson, type JsonValue } from '#protocol/tuf/index.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const parse = (text: string): JsonValue => parseStrictJson(bytes(text));

describe('parseStrictJson', () => {
  it('reads objects, arrays, strings, integers, booleans and null', () => {
    expect(parse(' {"a": [1, -2, true, false, null, "x\\u00e9\\n"]} ')).toEqual({
      a: [1, -2, true, false, null, 'xé\n'],
    });
  });

  it('keeps __proto__ as a plain member', () => {
    const value = parse('{"__proto__": {"x": 1}}') as Record<string, JsonValue>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(value)).toBeNull();
  });

  it('reads an escaped surrogate pair as one code point', () => {
    expect(parse('"\\ud83d\\ude00"')).toBe('😀');
  });

  it('refuses a leading BOM (JSON_BOM)', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{}')]);
    expect(() => parseStrictJson(withBom)).toThrow(expect.objectContaining({ code: 'JSON_BOM' }));
  });

  it('refuses a member named twice (JSON_DUPLICATE_MEMBER)', () => {
    expect(() => parse('{"a": 1, "a": 2}')).toThrow(
      expect.objectContaining({ code: 'JSON_DUPLICATE_MEMBER' }),
    );
  });

  it('refuses a member named twice through an escape (JSON_DUPLICATE_MEMBER)', () => {
    expect(() => parse('{"a": 1, "\\u0061": 2}')).toThrow(
      expect.objectContaining({ code: 'JSON_DUPLICATE_MEMBER' }),
    );
  });

  it.each([['1.0'], ['1e3'], ['-0'], ['9007199254740992'], ['"\\ud800"'], ['"\\udc00x"']])(
    'refuses %s, which parsers read differently (JSON_AMBIGUOUS)',
    (text) => {
      expect(() => parse(text)).toThrow(expect.objectContaining({ code: 'JSON_AMBIGUOUS' }));
    },
  );

  it.each([
    ['{"a":1,}'],
    ['[1,]'],
    ['{"a":1} x'],
    ['"tab\there"'],
    ["{'a':1}"],
    ['01'],
    ['"\\x"'],
    [''],
    ['nul'],
  ])('refuses malformed %j (JSON_MALFORMED)', (text) => {
    expect(() => parse(text)).toThrow(expect.objectContaining({ code: 'JSON_MALFORMED' }));
  });

  it('refuses invalid UTF-8 (JSON_MALFORMED)', () => {
    expect(() => parseStrictJson(new Uint8Array([0x22, 0xff, 0x22]))).toThrow(
      expect.objectContaining({ code: 'JSON_MALFORMED' }),
    );
  });

  it('refuses nesting deeper than MAX_DEPTH (JSON_MALFORMED)', () => {
    expect(() => parse('['.repeat(100) + ']'.repeat(100))).toThrow(
      expect.objectContaining({ code: 'JSON_MALFORMED' }),
    );
  });
});
