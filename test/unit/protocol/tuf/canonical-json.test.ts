import { describe, expect, it } from 'vitest';
import { canonicalJson, parseStrictJson } from '#protocol/tuf/index.js';

const canon = (text: string): string =>
  new TextDecoder().decode(canonicalJson(parseStrictJson(new TextEncoder().encode(text))));

describe('canonicalJson (OLPC canonical JSON, TUF spec §4.2)', () => {
  it('sorts members and drops whitespace', () => {
    expect(canon('{ "b": [1, 2], "a": {"d": null, "c": true} }')).toBe(
      '{"a":{"c":true,"d":null},"b":[1,2]}',
    );
  });

  it('escapes only quote and backslash; control characters go out raw', () => {
    expect(canon('"a\\"b\\\\c\\n\\u0001é"')).toBe('"a\\"b\\\\c\n\u0001é"');
  });

  it('sorts member names by code point, not UTF-16 unit', () => {
    // U+FF21 sorts before U+1F600 by code point, after it by UTF-16 unit.
    expect(canon('{"😀": 1, "Ａ": 2}')).toBe('{"Ａ":2,"😀":1}');
  });

  it('writes integers plainly', () => {
    expect(canon('[0, -5, 9007199254740991]')).toBe('[0,-5,9007199254740991]');
  });

  it('refuses a number canonical JSON cannot carry (JSON_AMBIGUOUS)', () => {
    expect(() => canonicalJson(1.5)).toThrow(expect.objectContaining({ code: 'JSON_AMBIGUOUS' }));
  });
});
