/**
 * A strict JSON reader for signed TUF metadata. TUF signs the canonical form of `signed`
 * (TUF spec §4.2), so every byte string we accept must have exactly one reading: anything a
 * second parser could read differently is refused, even where python-tuf is lenient.
 *
 * Refused: a leading BOM (JSON_BOM); invalid UTF-8, trailing bytes, nesting deeper than
 * MAX_DEPTH (JSON_MALFORMED); an object naming a member twice (JSON_DUPLICATE_MEMBER);
 * fractions, exponents, -0, integers beyond 2^53 - 1 and lone surrogate escapes, which canonical
 * JSON cannot carry or which parsers disagree on (JSON_AMBIGUOUS).
 */
import { compareCodePoints } from './code-points.js';
import { TufError } from './tuf-error.js';

export type JsonValue = null | boolean | number | string | JsonArray | JsonObject;
export type JsonArray = readonly JsonValue[];
/** A null-prototype object: `__proto__` and `constructor` are plain members here. */
export interface JsonObject {
  readonly [member: string]: JsonValue;
}

/** Deeper than any TUF document nests; bounds the recursion. */
export const MAX_DEPTH = 64;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function parseStrictJson(bytes: Uint8Array): JsonValue {
  return read(bytes).value;
}

/** A strictly read document and the canonical bytes of the members already written so. */
export interface StrictDocument {
  readonly value: JsonValue;
  /**
   * Top-level member name -> the input bytes of its value, for each value written exactly as
   * canonical JSON writes it (canonical-json.ts): no whitespace, members in code point order,
   * no escapes but `\"` and `\\`. Those bytes ARE its canonical form, so a signature check
   * needs no second writing (the reader refused anything else in them already).
   */
  readonly canonical: ReadonlyMap<string, Uint8Array>;
}

const encoder = new TextEncoder();

/** parseStrictJson, plus the canonical bytes of the top-level members written canonically. */
export function parseStrictDocument(bytes: Uint8Array): StrictDocument {
  const { text, value, parser } = read(bytes);
  // Only ASCII text has its character offsets equal to its byte offsets.
  const ascii = text.length === bytes.length;
  const canonical = new Map<string, Uint8Array>();
  for (const [name, [start, end]] of parser.canonicalSpans) {
    canonical.set(
      name,
      ascii ? bytes.subarray(start, end) : encoder.encode(text.slice(start, end)),
    );
  }
  return { value, canonical };
}

function read(bytes: Uint8Array): { text: string; value: JsonValue; parser: StrictParser } {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch (cause) {
    throw new TufError('JSON_MALFORMED', 'metadata is not valid UTF-8', undefined, { cause });
  }
  if (text.startsWith('\uFEFF')) throw new TufError('JSON_BOM', 'metadata starts with a BOM');
  const parser = new StrictParser(text);
  parser.skipSpace();
  const value = parser.value(0);
  parser.skipSpace();
  if (!parser.atEnd()) parser.fail('trailing characters after the JSON value');
  return { text, value, parser };
}

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

class StrictParser {
  private pos = 0;
  /** How many things read so far canonical JSON would write otherwise (whitespace, ...). */
  private irregular = 0;
  /** Top-level member name -> [start, end) of its value text, when that text is canonical. */
  readonly canonicalSpans = new Map<string, readonly [number, number]>();

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos === this.text.length;
  }

  fail(what: string): never {
    throw new TufError('JSON_MALFORMED', `${what} at offset ${this.pos}`);
  }

  skipSpace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos += 1;
      this.irregular += 1;
    }
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail('nesting too deep');
    const c = this.text[this.pos];
    if (c === '{') return this.object(depth + 1);
    if (c === '[') return this.array(depth + 1);
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail('unexpected character');
  }

  private expect(char: string): void {
    if (this.text[this.pos] !== char) this.fail(`expected '${char}'`);
    this.pos += 1;
  }

  private object(depth: number): JsonObject {
    this.expect('{');
    // Built plain, then given a null prototype: V8 keeps such an object's fast properties,
    // where Object.create(null) starts in dictionary mode, several times slower to read.
    const result: Record<string, JsonValue> = {};
    this.skipSpace();
    if (this.text[this.pos] === '}') this.pos += 1;
    else this.members(result, depth);
    return Object.setPrototypeOf(result, null) as JsonObject;
  }

  private members(result: Record<string, JsonValue>, depth: number): void {
    let previous: string | undefined;
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a member name');
      const name = this.string();
      if (Object.hasOwn(result, name)) {
        throw new TufError('JSON_DUPLICATE_MEMBER', `member "${name}" appears twice`, { name });
      }
      if (previous !== undefined && compareCodePoints(previous, name) > 0) this.irregular += 1;
      previous = name;
      this.skipSpace();
      this.expect(':');
      this.skipSpace();
      const start = this.pos;
      const before = this.irregular;
      const value = this.value(depth);
      // Assigning `__proto__` would set the prototype: it is defined as a plain member.
      if (name === '__proto__') {
        Object.defineProperty(result, name, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else result[name] = value;
      if (depth === 1 && this.irregular === before) {
        this.canonicalSpans.set(name, [start, this.pos]);
      }
      this.skipSpace();
      if (this.text[this.pos] === '}') {
        this.pos += 1;
        return;
      }
      this.expect(',');
    }
  }

  private array(depth: number): JsonArray {
    this.expect('[');
    const result: JsonValue[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos += 1;
      return result;
    }
    for (;;) {
      this.skipSpace();
      result.push(this.value(depth));
      this.skipSpace();
      if (this.text[this.pos] === ']') {
        this.pos += 1;
        return result;
      }
      this.expect(',');
    }
  }

  private number(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) return this.fail('malformed number');
    const literal = match[0];
    if (match[1] !== undefined || match[2] !== undefined || literal === '-0') {
      throw new TufError('JSON_AMBIGUOUS', `number ${literal} is not a canonical integer`);
    }
    const value = Number(literal);
    if (!Number.isSafeInteger(value)) {
      throw new TufError('JSON_AMBIGUOUS', `integer ${literal} is beyond 2^53 - 1`);
    }
    this.pos += literal.length;
    return value;
  }

  private string(): string {
    this.expect('"');
    let result = '';
    for (;;) {
      const start = this.pos;
      this.pos = this.plainRunEnd(start);
      result += this.text.slice(start, this.pos);
      const c = this.text[this.pos];
      if (c === '"') {
        this.pos += 1;
        return result;
      }
      if (c !== '\\') return this.fail('unescaped control character or unterminated string');
      result += this.escape();
    }
  }

  /** Where the run of characters a string may hold as they are, from `from`, ends. */
  private plainRunEnd(from: number): number {
    const { text } = this;
    let at = from;
    for (;;) {
      const unit = text.charCodeAt(at);
      // Control characters (U+0000..U+001F) must be escaped (RFC 8259 §7); NaN is the end.
      if (!(unit >= 0x20) || unit === 0x22 || unit === 0x5c) return at;
      at += 1;
    }
  }

  private escape(): string {
    const c = this.text[this.pos + 1];
    if (c === undefined) return this.fail('unterminated escape');
    const simple = ESCAPES[c];
    if (simple !== undefined) {
      // Canonical JSON escapes only these two, and writes everything else as it is.
      if (c !== '"' && c !== '\\') this.irregular += 1;
      this.pos += 2;
      return simple;
    }
    this.irregular += 1;
    if (c !== 'u') return this.fail('unknown escape');
    const unit = this.hex4(this.pos + 2);
    this.pos += 6;
    if (unit >= 0xdc00 && unit <= 0xdfff) this.loneSurrogate();
    if (unit < 0xd800 || unit > 0xdbff) return String.fromCharCode(unit);
    // A high surrogate must be followed by an escaped low one: a pair is one code point.
    if (this.text[this.pos] !== '\\' || this.text[this.pos + 1] !== 'u') this.loneSurrogate();
    const low = this.hex4(this.pos + 2);
    if (low < 0xdc00 || low > 0xdfff) this.loneSurrogate();
    this.pos += 6;
    return String.fromCharCode(unit, low);
  }

  private hex4(at: number): number {
    const digits = this.text.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) return this.fail('malformed \\u escape');
    return parseInt(digits, 16);
  }

  private loneSurrogate(): never {
    throw new TufError('JSON_AMBIGUOUS', `lone surrogate escape near offset ${this.pos}`);
  }
}
