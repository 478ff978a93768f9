import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf, parsePubkeyHex, pubkeyToHex } from '#protocol/keys.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { errorBody, isErrorBody } from '#protocol/error-body.js';

describe('node_pubkey and keyid', () => {
  const raw = Uint8Array.from({ length: 32 }, (_, i) => i);
  it('round-trips 32 bytes through 64 lowercase hex', () => {
    const hex = pubkeyToHex(raw);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect([...parsePubkeyHex(hex)]).toEqual([...raw]);
  });
  it('refuses uppercase hex', () => {
    expect(() => parsePubkeyHex('A'.repeat(64))).toThrow(ProtocolError);
  });
  it('refuses a 31-byte key', () => {
    expect(() => pubkeyToHex(raw.subarray(1))).toThrow(ProtocolError);
  });
  it('derives the keyid as the hex SHA-256 of the raw key', () => {
    expect(keyIdOf(raw)).toBe(createHash('sha256').update(raw).digest('hex'));
  });
});

describe('error body', () => {
  it('has ok false, a one-line message and the code', () => {
    expect(errorBody('X', 'a\r\nb')).toEqual({ ok: false, error: 'a b', code: 'X' });
  });
  it('is recognised by isErrorBody, and a success body is not', () => {
    expect(isErrorBody(errorBody('X', 'm'))).toBe(true);
    expect(isErrorBody({ ok: true, code: 'X' })).toBe(false);
  });
});
