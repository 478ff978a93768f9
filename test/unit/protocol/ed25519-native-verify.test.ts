/**
 * verifyEd25519's native fast path (src/protocol/ed25519.ts) against the portable strict
 * verifier on every vector we hold: Wycheproof (151 cases), the strictness cases and RFC 8032
 * §7.1. The native half may say no where the portable one says yes, never the reverse, and the
 * combined verifier answers exactly as the portable one does.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  generateKeyPair,
  prepareEd25519Key,
  signEd25519,
  verifyEd25519,
  verifyEd25519Native,
  verifyEd25519Portable,
} from '#protocol/ed25519.js';

interface Case {
  readonly label: string;
  readonly pk: string;
  readonly msg: string;
  readonly sig: string;
}

const load = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../vectors/${name}`, import.meta.url), 'utf8')) as T;
const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));

const wycheproof = load<{
  testGroups: { publicKey: { pk: string }; tests: { tcId: number; msg: string; sig: string }[] }[];
}>('wycheproof-ed25519_test.json').testGroups.flatMap((g) =>
  g.tests.map((t) => ({ label: `wycheproof ${t.tcId}`, pk: g.publicKey.pk, ...t })),
);
const rfc = load<{
  vectors: { name: string; public_key: string; message: string; signature: string }[];
}>('ed25519-rfc8032.json').vectors.map((v) => ({
  label: `RFC 8032 ${v.name}`,
  pk: v.public_key,
  msg: v.message,
  sig: v.signature,
}));
const strictness = load<{
  cases: { name: string; public_key: string; message: string; signature: string }[];
}>('ed25519-strictness.json').cases.map((c) => ({
  label: `strictness ${c.name}`,
  pk: c.public_key,
  msg: c.message,
  sig: c.signature,
}));
const cases: readonly Case[] = [...wycheproof, ...rfc, ...strictness];

describe('verifyEd25519: native fast path, portable semantics', () => {
  it('runs over all the vectors held (151 Wycheproof, RFC 8032, strictness)', () => {
    expect(wycheproof).toHaveLength(151);
    expect(rfc.length).toBeGreaterThan(0);
    expect(strictness.length).toBeGreaterThan(0);
  });

  it('the native path decides valid signatures itself (it is used, not bypassed)', () => {
    const valid = cases.filter((c) => verifyEd25519Portable(hex(c.sig), hex(c.msg), hex(c.pk)));
    expect(valid.length).toBeGreaterThan(50);
    for (const c of valid)
      expect(verifyEd25519Native(hex(c.sig), hex(c.msg), hex(c.pk))).toBe(true);
  });

  for (const c of cases) {
    it(`${c.label}: native yes implies portable yes; combined equals portable`, () => {
      const [sig, msg, pk] = [hex(c.sig), hex(c.msg), hex(c.pk)];
      const portable = verifyEd25519Portable(sig, msg, pk);
      if (verifyEd25519Native(sig, msg, pk)) expect(portable).toBe(true);
      expect(verifyEd25519(sig, msg, pk)).toBe(portable);
    });
  }

  it('agrees with the portable verifier on fresh keys, good and tampered signatures', () => {
    for (let n = 0; n < 8; n++) {
      const { secretKey, publicKey } = generateKeyPair();
      const message = new Uint8Array(n * 11).map((_, i) => (i * 3 + n) & 0xff);
      const sig = signEd25519(message, secretKey);
      const bad = Uint8Array.from(sig);
      bad[n] = (bad[n] as number) ^ 1;
      expect(verifyEd25519(sig, message, publicKey)).toBe(true);
      expect(verifyEd25519Native(sig, message, publicKey)).toBe(true);
      expect(verifyEd25519(bad, message, publicKey)).toBe(false);
      expect(verifyEd25519Portable(bad, message, publicKey)).toBe(false);
    }
  });

  it('keeps the native path away from small-order and non-canonical keys', () => {
    // The identity point (small order) and y = p (non-canonical): portable judgement only.
    const identity = hex('01'.padEnd(64, '0'));
    const yIsP = hex('ed' + 'ff'.repeat(30) + '7f');
    const sig = new Uint8Array(64);
    for (const pk of [identity, yIsP]) {
      expect(verifyEd25519Native(sig, new Uint8Array(0), pk)).toBe(false);
      expect(verifyEd25519(sig, new Uint8Array(0), pk)).toBe(
        verifyEd25519Portable(sig, new Uint8Array(0), pk),
      );
    }
  });

  it('gives every verdict unchanged for a key readied first (prepareEd25519Key)', () => {
    for (const c of cases) {
      const [sig, msg, pk] = [hex(c.sig), hex(c.msg), hex(c.pk)];
      prepareEd25519Key(pk);
      if (verifyEd25519Native(sig, msg, pk)) expect(verifyEd25519Portable(sig, msg, pk)).toBe(true);
      expect(verifyEd25519(sig, msg, pk), c.label).toBe(verifyEd25519Portable(sig, msg, pk));
    }
    // A key of the wrong length is left alone, never a throw.
    expect(() => prepareEd25519Key(new Uint8Array(31))).not.toThrow();
  });
});
