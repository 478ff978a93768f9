import { describe, expect, it } from 'vitest';
import { canonicalJson, compareCodePoints, parseStrictJson } from '#protocol/tuf/index.js';

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

  it('orders as code points do, astral, lone surrogates and shared pairs included', () => {
    const byCodePoint = (a: string, b: string): number => {
      const [x, y] = [Array.from(a), Array.from(b)];
      for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
        const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0);
        if (d !== 0) return d;
      }
      return x.length - y.length;
    };
    const units = [
      'a',
      'z',
      '\uff21',
      '\ue000',
      '\ud83d\ude00',
      '\ud83d\ude01',
      '\ud800',
      '\udc00',
    ];
    let seed = 7;
    const pick = () => units[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % units.length] ?? '';
    const words = Array.from({ length: 400 }, () => pick() + pick() + pick());
    for (const a of words.slice(0, 200)) {
      for (const b of words.slice(200)) {
        expect(Math.sign(compareCodePoints(a, b)), JSON.stringify([a, b])).toBe(
          Math.sign(byCodePoint(a, b)),
        );
      }
    }
  });

  it('writes integers plainly', () => {
    expect(canon('[0, -5, 9007199254740991]')).toBe('[0,-5,9007199254740991]');
  });

  it('refuses a number canonical JSON cannot carry (JSON_AMBIGUOUS)', () => {
    expect(() => canonicalJson(1.5)).toThrow(expect.objectContaining({ code: 'JSON_AMBIGUOUS' }));
  });
});
