import { describe, expect, it } from 'vitest';
import {
  encodeFreshness,
  isNonce,
  MAX_FRESHNESS_PAYLOAD_BYTES,
  parseFreshness,
  type FreshnessStatement,
} from '#protocol/freshness.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';

const statement: FreshnessStatement = {
  release_sha256: 'a'.repeat(64),
  keys_version: 2,
  sequence: 41,
  issued_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-02T00:00:00.000Z',
};
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

const codeOf = (value: unknown): string | undefined =>
  codeOfAny(
    () => parseFreshness(value instanceof Uint8Array ? value : bytesOf(value)),
    ProtocolError,
  );

describe('parseFreshness / encodeFreshness', () => {
  it('round-trips and gives the times in epoch ms', () => {
    const parsed = parseFreshness(encodeFreshness(statement));
    expect(parsed).toMatchObject(statement);
    expect(parsed.expiresAtMs - parsed.issuedAtMs).toBe(86_400_000);
    expect(parsed.nonce).toBeUndefined();
  });

  it('carries a nonce when there is one', () => {
    const nonce = 'AbCdEfGhIjKlMnOpQrStUv';
    expect(parseFreshness(encodeFreshness({ ...statement, nonce })).nonce).toBe(nonce);
  });

  it('encodes the fields in a fixed order', () => {
    const text = new TextDecoder().decode(encodeFreshness(statement));
    expect(text).toBe(
      '{"release_sha256":"' +
        'a'.repeat(64) +
        '","keys_version":2,"sequence":41,"issued_at":"2026-01-01T00:00:00.000Z",' +
        '"expires_at":"2026-01-02T00:00:00.000Z"}',
    );
  });

  it('ignores unknown fields', () => {
    expect(codeOf({ ...statement, mirror: 'x' })).toBeUndefined();
  });

  const refusals: [string, unknown, string][] = [
    ['bytes that are not UTF-8', new Uint8Array([0xff]), 'MANIFEST_MALFORMED'],
    ['a missing sequence', { ...statement, sequence: undefined }, 'MANIFEST_MALFORMED'],
    ['sequence 0', { ...statement, sequence: 0 }, 'MANIFEST_MALFORMED'],
    ['a fractional sequence', { ...statement, sequence: 1.5 }, 'MANIFEST_MALFORMED'],
    ['a sequence past 2^53', { ...statement, sequence: 2 ** 53 }, 'MANIFEST_MALFORMED'],
    ['keys_version 0', { ...statement, keys_version: 0 }, 'MANIFEST_MALFORMED'],
    ['an uppercase digest', { ...statement, release_sha256: 'A'.repeat(64) }, 'BAD_DIGEST'],
    ['an issued_at that is not RFC 3339', { ...statement, issued_at: 'now' }, 'MANIFEST_MALFORMED'],
    [
      'an expires_at not after issued_at',
      { ...statement, expires_at: statement.issued_at },
      'MANIFEST_MALFORMED',
    ],
    ['a nonce of 15 characters', { ...statement, nonce: 'a'.repeat(15) }, 'MANIFEST_MALFORMED'],
    ['a nonce with a slash', { ...statement, nonce: 'a'.repeat(20) + '/' }, 'MANIFEST_MALFORMED'],
    ['a null nonce', { ...statement, nonce: null }, 'MANIFEST_MALFORMED'],
    [
      `a payload over ${MAX_FRESHNESS_PAYLOAD_BYTES} bytes`,
      { ...statement, pad: 'x'.repeat(MAX_FRESHNESS_PAYLOAD_BYTES) },
      'MANIFEST_MALFORMED',
    ],
  ];
  for (const [what, value, code] of refusals) {
    it(`refuses ${what} with ${code}`, () => {
      expect(codeOf(value)).toBe(code);
    });
  }
});

describe('isNonce', () => {
  it('accepts 16 to 64 base64url characters and nothing else', () => {
    expect(isNonce('a'.repeat(16))).toBe(true);
    expect(isNonce('-_'.repeat(32))).toBe(true);
    expect(isNonce('a'.repeat(65))).toBe(false);
    expect(isNonce('a'.repeat(15))).toBe(false);
    expect(isNonce('a'.repeat(16) + '=')).toBe(false);
    expect(isNonce(42)).toBe(false);
  });
});
