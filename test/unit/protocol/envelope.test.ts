import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKeyPair, verifyEd25519 } from '#protocol/ed25519.js';
import {
  decodeBase64Strict,
  envelopeFromJson,
  MANIFEST_PAYLOAD_TYPE,
  MAX_SIGNATURES,
  pae,
  parseEnvelope,
  signEnvelope,
} from '#protocol/envelope.js';
import { keyIdOf } from '#protocol/keys.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';
const codeOf = (run: () => unknown): string | undefined => codeOfAny(run, ProtocolError);

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');
const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('pae (DSSE v1 pre-authentication encoding)', () => {
  it('matches the DSSE specification example', () => {
    // https://github.com/secure-systems-lab/dsse/blob/master/protocol.md (Test vector)
    const out = pae('http://example.com/HelloWorld', new TextEncoder().encode('hello world'));
    expect(text(out)).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  });

  it('encodes an empty type and an empty payload with zero lengths', () => {
    expect(text(pae('', new Uint8Array()))).toBe('DSSEv1 0  0 ');
  });

  it('counts bytes, not characters, for a non-ASCII type', () => {
    const out = pae('tÿpe', new Uint8Array([0xff, 0x00]));
    expect(Buffer.from(out).subarray(0, 9).toString()).toBe('DSSEv1 5 ');
    expect([...out.subarray(out.length - 2)]).toEqual([0xff, 0x00]);
  });

  it('keeps the payload bytes raw (no re-encoding of invalid UTF-8)', () => {
    const payload = new Uint8Array([0xc3, 0x28, 0x20]);
    const out = pae('t', payload);
    expect(text(out.subarray(0, 11))).toBe('DSSEv1 1 t ');
    expect([...out.subarray(out.length - 3)]).toEqual([0xc3, 0x28, 0x20]);
  });
});

describe('signEnvelope / parseEnvelope', () => {
  const { secretKey, publicKey } = generateKeyPair();
  const payload = json({ registry_version: '1.0.0' });

  it('round-trips: the parsed payload is the signed bytes and the signature verifies', () => {
    const env = signEnvelope(payload, secretKey, publicKey);
    expect(env.ok).toBe(true);
    expect(env.payloadType).toBe(MANIFEST_PAYLOAD_TYPE);
    expect(env.signatures[0]?.keyid).toBe(keyIdOf(publicKey));
    const parsed = parseEnvelope(json(env));
    expect(Buffer.from(parsed.payload).equals(Buffer.from(payload))).toBe(true);
    const sig = parsed.signatures[0]?.sig ?? new Uint8Array();
    expect(verifyEd25519(sig, pae(parsed.payloadType, parsed.payload), publicKey)).toBe(true);
  });

  it('produces a signature that node:crypto verifies independently over the PAE', () => {
    const env = signEnvelope(payload, secretKey, publicKey);
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      format: 'jwk',
    });
    const sig = Buffer.from(env.signatures[0]?.sig ?? '', 'base64');
    const message = pae(MANIFEST_PAYLOAD_TYPE, payload);
    expect(nodeVerify(null, message, key, sig)).toBe(true);
    // The same signature does not cover the bare payload: only the PAE is signed.
    expect(nodeVerify(null, payload, key, sig)).toBe(false);
  });

  it('produces a signature that fails under node:crypto once one payload byte changes', () => {
    const env = signEnvelope(payload, secretKey, publicKey);
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      format: 'jwk',
    });
    const tampered = Uint8Array.from(payload);
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    const sig = Buffer.from(env.signatures[0]?.sig ?? '', 'base64');
    expect(nodeVerify(null, pae(MANIFEST_PAYLOAD_TYPE, tampered), key, sig)).toBe(false);
  });

  const good = {
    payloadType: 't',
    payload: 'eyJ9',
    signatures: [{ keyid: 'a'.repeat(64), sig: 'AAAA' }],
  };
  const refusals: [string, Uint8Array][] = [
    ['bytes that are not UTF-8', new Uint8Array([0xff, 0xfe])],
    ['text that is not JSON', new TextEncoder().encode('{nope')],
    ['a JSON array', json([good])],
    ['JSON null', json(null)],
    ['a missing payloadType', json({ ...good, payloadType: undefined })],
    ['a numeric payloadType', json({ ...good, payloadType: 5 })],
    ['a missing payload', json({ ...good, payload: undefined })],
    ['a payload in base64url', json({ ...good, payload: 'ey-_' })],
    ['a payload with whitespace', json({ ...good, payload: 'eyJ9 ' })],
    ['a payload without padding', json({ ...good, payload: 'eyJ' })],
    ['an empty signature list', json({ ...good, signatures: [] })],
    ['signatures that are not a list', json({ ...good, signatures: {} })],
    ['a signature that is not an object', json({ ...good, signatures: ['x'] })],
    ['an uppercase keyid', json({ ...good, signatures: [{ keyid: 'A'.repeat(64), sig: 'AAAA' }] })],
    ['a short keyid', json({ ...good, signatures: [{ keyid: 'a'.repeat(63), sig: 'AAAA' }] })],
    ['a numeric sig', json({ ...good, signatures: [{ keyid: 'a'.repeat(64), sig: 1 }] })],
    [
      'a sig that is not base64',
      json({ ...good, signatures: [{ keyid: 'a'.repeat(64), sig: '!!' }] }),
    ],
    [
      `more than ${MAX_SIGNATURES} signatures`,
      json({
        ...good,
        signatures: Array.from({ length: MAX_SIGNATURES + 1 }, () => good.signatures[0]),
      }),
    ],
  ];
  for (const [what, bytes] of refusals) {
    it(`refuses ${what} with ENVELOPE_MALFORMED`, () => {
      expect(codeOf(() => parseEnvelope(bytes))).toBe('ENVELOPE_MALFORMED');
    });
  }

  it('accepts the smallest well-formed envelope', () => {
    expect(codeOf(() => parseEnvelope(json(good)))).toBeUndefined();
  });
});

describe('decodeBase64Strict', () => {
  it('decodes canonical padded base64', () => {
    expect(Buffer.from(decodeBase64Strict('aGk=', 'x')).toString()).toBe('hi');
  });
  it('refuses base64 with a line break', () => {
    expect(codeOf(() => decodeBase64Strict('aG\nk=', 'x'))).toBe('ENVELOPE_MALFORMED');
  });
});

describe('envelopeFromJson (an envelope nested in an answer)', () => {
  const { secretKey, publicKey } = generateKeyPair();
  const env = signEnvelope(json({}), secretKey, publicKey);
  const many = (n: number) => ({
    ...env,
    signatures: Array.from({ length: n }, () => env.signatures[0]),
  });

  it('names the nested envelope in its messages', () => {
    expect(() => envelopeFromJson({ ...env, payload: 1 }, 'release')).toThrow(/^release\.payload/);
  });

  it('takes a larger signature bound when the caller allows one (a key set link)', () => {
    expect(envelopeFromJson(many(32), 'keys[0]', 32).signatures).toHaveLength(32);
    expect(codeOf(() => envelopeFromJson(many(33), 'keys[0]', 32))).toBe('ENVELOPE_MALFORMED');
  });
});
