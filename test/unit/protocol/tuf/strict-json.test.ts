import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  parseStrictDocument,
  parseStrictJson,
  type JsonObject,
  type JsonValue,
} from '#protocol/tuf/index.js';

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

  it('gives every object, empty or nested, a null prototype and only its own members', () => {
    const value = parse('{"a":{"constructor":1,"__proto__":2,"toString":3},"b":{}}') as JsonObject;
    const inner = value['a'] as JsonObject;
    expect(Object.keys(inner)).toEqual(['constructor', '__proto__', 'toString']);
    expect(Object.values(inner)).toEqual([1, 2, 3]);
    expect(inner['__proto__']).toBe(2);
    expect(Object.getPrototypeOf(inner)).toBeNull();
    expect(Object.getPrototypeOf(value['b'])).toBeNull();
    expect((value['b'] as JsonObject)['constructor']).toBeUndefined();
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

describe('parseStrictDocument: members already written canonically', () => {
  const signedOf = (text: string): Uint8Array | undefined =>
    parseStrictDocument(bytes(text)).canonical.get('signed');
  const decoded = (view: Uint8Array | undefined): string | undefined =>
    view === undefined ? undefined : new TextDecoder().decode(view);

  it('gives the input bytes of a canonical value, which are its canonical JSON', () => {
    const text = ' { "signatures" : [ ], "signed":{"a":1,"b":"q\\"s\\\\","c":[true,null,{},[]]} } ';
    const document = parseStrictDocument(bytes(text));
    const signed = (document.value as JsonObject)['signed'] ?? null;
    expect(decoded(document.canonical.get('signed'))).toBe(
      new TextDecoder().decode(canonicalJson(signed)),
    );
    // The whitespace around `signed` is outside it; `signatures` holds some.
    expect(document.canonical.has('signatures')).toBe(false);
  });

  it('gives the UTF-8 bytes of a canonical value with non-ASCII text', () => {
    expect(signedOf(String.raw`{"signed":{"a":"\u00e9"}}`)).toBeUndefined();
    // Code point order puts U+E000 before U+1F600 (UTF-16 order would not).
    expect(decoded(signedOf('{"signed":{"\uE000x":"é","😀":1}}'))).toBe('{"\uE000x":"é","😀":1}');
    expect(signedOf('{"signed":{"😀":1,"\uE000x":"é"}}')).toBeUndefined();
  });

  it.each([
    ['whitespace', '{"signed":{"a": 1}}'],
    ['members out of order', '{"signed":{"b":1,"a":2}}'],
    ['a \\n escape', '{"signed":{"a":"x\\ny"}}'],
    ['a \\u escape', '{"signed":{"a":"\\u0061"}}'],
    ['a \\/ escape', '{"signed":{"a":"\\/"}}'],
    ['nested whitespace', '{"signed":{"a":[1, 2]}}'],
  ])('gives nothing for a value with %s (it is written again)', (_, text) => {
    expect(signedOf(text)).toBeUndefined();
  });

  it('gives exactly canonicalJson for whatever it gives (random documents)', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const names = ['a', 'b', 'B', '_t', 'é', '\uE000', '😀', 'a"b', 'c\\d', 'ab'];
    const value = (depth: number): JsonValue => {
      const kind = random(depth > 2 ? 4 : 6);
      if (kind === 0) return random(1000) - 500;
      if (kind === 1) return names[random(names.length)] ?? '';
      if (kind === 2) return random(2) === 0;
      if (kind === 3) return null;
      if (kind === 4) return Array.from({ length: random(3) }, () => value(depth + 1));
      const object: Record<string, JsonValue> = {};
      for (let i = random(4); i > 0; i -= 1)
        object[names[random(names.length)] ?? ''] = value(depth + 1);
      return object;
    };
    let given = 0;
    for (let i = 0; i < 300; i += 1) {
      const signed = value(0);
      const canonical = new TextDecoder().decode(canonicalJson(signed));
      for (const text of [
        `{"signed":${canonical}}`,
        `{"signed":${JSON.stringify(signed)}}`,
        `{"signed":${JSON.stringify(signed, null, 1)}}`,
      ]) {
        const span = decoded(signedOf(text));
        if (span !== undefined) given += 1;
        expect([undefined, canonical]).toContain(span);
      }
      expect(decoded(signedOf(`{"signed":${canonical}}`))).toBe(canonical);
    }
    expect(given).toBeGreaterThan(300);
  });
});
