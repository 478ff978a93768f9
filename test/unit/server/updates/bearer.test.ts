import { describe, expect, it } from 'vitest';
import { parseBearer } from '#server/updates/bearer.js';

const key = `mk_${'A'.repeat(21)}-_${'z'.repeat(20)}`;

describe('parseBearer (RFC 6750 §2.1)', () => {
  it('extracts a machine key from "Bearer <key>"', () => {
    expect(parseBearer(`Bearer ${key}`)).toEqual({ ok: true, key });
  });
  it('accepts the scheme in any case', () => {
    expect(parseBearer(`BEARER ${key}`)).toEqual({ ok: true, key });
  });
  const missing: [string, string | undefined][] = [
    ['no header', undefined],
    ['an empty header', ''],
  ];
  for (const [what, header] of missing) {
    it(`calls ${what} MISSING_MACHINE_KEY`, () => {
      expect(parseBearer(header)).toEqual({ ok: false, code: 'MISSING_MACHINE_KEY' });
    });
  }
  const invalid: [string, string | string[]][] = [
    ['another scheme', `Basic ${key}`],
    ['a leading space', ` Bearer ${key}`],
    ['two spaces', `Bearer  ${key}`],
    ['a trailing space', `Bearer ${key} `],
    ['a tab separator', `Bearer\t${key}`],
    ['the scheme alone', 'Bearer'],
    ['a key without its prefix', `Bearer ${'A'.repeat(43)}`],
    ['a short key', `Bearer ${key.slice(0, -1)}`],
    ['a long key', `Bearer ${key}A`],
    ['a key with a comma list', `Bearer ${key}, Bearer ${key}`],
    ['a key with padding', `Bearer ${key}=`],
    ['a duplicated header', [`Bearer ${key}`, `Bearer ${key}`]],
  ];
  for (const [what, header] of invalid) {
    it(`calls ${what} INVALID_MACHINE_KEY`, () => {
      expect(parseBearer(header)).toEqual({ ok: false, code: 'INVALID_MACHINE_KEY' });
    });
  }
});
