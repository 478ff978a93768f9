import { describe, expect, it } from 'vitest';
import {
  encodeManifest,
  MAX_NOTES_BYTES,
  notesProblem,
  parseManifest,
  type Manifest,
} from '#protocol/manifest.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { codeOf } from '#test/expect-code.js';

const base: Manifest = {
  registry_version: '2.0.0',
  issued_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-08T00:00:00Z',
  artifacts: [],
};
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const parse = (value: unknown) => () => parseManifest(bytesOf(value));

describe('manifest release notes', () => {
  it('round-trips signed notes with lines and tabs, after the artifacts', () => {
    const notes = '# 2.0.0\n\n- faster\n\t- *much* faster\n';
    const bytes = encodeManifest({ ...base, notes });
    expect(new TextDecoder().decode(bytes).endsWith(`"notes":${JSON.stringify(notes)}}`)).toBe(
      true,
    );
    expect(parseManifest(bytes).notes).toBe(notes);
  });

  it('a manifest without notes parses without the field and encodes without it', () => {
    expect('notes' in parseManifest(encodeManifest(base))).toBe(false);
    expect(new TextDecoder().decode(encodeManifest(base))).not.toContain('notes');
  });

  it('accepts notes of exactly the cap in UTF-8 bytes, refuses one byte more', () => {
    const atCap = 'é'.repeat(MAX_NOTES_BYTES / 2);
    expect(parseManifest(bytesOf({ ...base, notes: atCap })).notes).toBe(atCap);
    expect(codeOf(parse({ ...base, notes: `${atCap}x` }), ProtocolError)).toBe(
      'MANIFEST_MALFORMED',
    );
  });

  const refused: [string, unknown][] = [
    ['a number', 42],
    ['null', null],
    ['an array', ['a']],
    ['a carriage return', 'a\r\nb'],
    ['an escape sequence', 'red \u001b[31m text'],
    ['a NUL', 'a\u0000b'],
    ['DEL', 'a\u007fb'],
    ['a C1 control', 'a\u0085b'],
    ['a right-to-left override', 'txt.\u202eexe'],
    ['an isolate', 'a\u2066b\u2069'],
  ];
  for (const [what, notes] of refused) {
    it(`refuses notes that are ${what}`, () => {
      expect(notesProblem(notes)).not.toBeNull();
      expect(codeOf(parse({ ...base, notes }), ProtocolError)).toBe('MANIFEST_MALFORMED');
    });
  }
});
