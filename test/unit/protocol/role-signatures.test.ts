import { describe, expect, it } from 'vitest';
import { envelopeFromJson, type ParsedEnvelope } from '#protocol/envelope.js';
import { roleOf, type Role } from '#protocol/key-set.js';
import {
  addSignatures,
  signDsse,
  verifyRole,
  type DsseEnvelope,
  type KeyContext,
} from '#protocol/role-signatures.js';
import { TrustError } from '#protocol/trust-error.js';
import { newKey, newKeys, type TestKey } from '#test/trust-kit.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';
const codeOf = (run: () => unknown): string | undefined => codeOfAny(run, TrustError);

const TYPE = 'application/vnd.updates.release+json';
const payload = new TextEncoder().encode('{"registry_version":"1.0.0","artifacts":[]}');
const parsed = (env: DsseEnvelope): ParsedEnvelope => envelopeFromJson(env, 'release');
const roleOfKeys = (keys: readonly TestKey[], threshold: number): Role =>
  roleOf(
    threshold,
    keys.map((k) => k.hex),
  );

const keys = newKeys(5);
const role = roleOfKeys(keys, 3);
const verify = (env: DsseEnvelope, context?: KeyContext) =>
  verifyRole(parsed(env), role, TYPE, 'release', context);

describe('verifyRole (k of n, distinct keys)', () => {
  it('accepts exactly the threshold of distinct valid signatures and returns their keyids', () => {
    const env = signDsse(payload, TYPE, keys.slice(0, 3));
    expect(verify(env)).toEqual(keys.slice(0, 3).map((k) => k.keyid));
  });

  it('stops counting at the threshold (a later bad signature is not looked at)', () => {
    const env = signDsse(payload, TYPE, keys.slice(0, 4));
    const broken = {
      ...env,
      signatures: [
        ...env.signatures.slice(0, 3),
        { keyid: keys[3]?.keyid ?? '', sig: env.signatures[0]?.sig ?? '' },
      ],
    };
    expect(verify(broken)).toHaveLength(3);
  });

  it('refuses one key listed three times as THRESHOLD_NOT_MET (a key counts once)', () => {
    const one = signDsse(payload, TYPE, [keys[0] as TestKey]);
    const sig = one.signatures[0];
    const env = { ...one, signatures: [sig, sig, sig].filter((s) => s !== undefined) };
    expect(codeOf(() => verify(env))).toBe('THRESHOLD_NOT_MET');
  });

  it('refuses two of three needed signatures as THRESHOLD_NOT_MET', () => {
    expect(codeOf(() => verify(signDsse(payload, TYPE, keys.slice(0, 2))))).toBe(
      'THRESHOLD_NOT_MET',
    );
  });

  it('refuses a tampered payload as SIGNATURE_INVALID', () => {
    const env = signDsse(payload, TYPE, keys.slice(0, 3));
    const other = Buffer.from('{"registry_version":"6.6.6","artifacts":[]}').toString('base64');
    expect(codeOf(() => verify({ ...env, payload: other }))).toBe('SIGNATURE_INVALID');
  });

  it('refuses a signature by a rogue key under a role keyid as SIGNATURE_INVALID', () => {
    const rogue = signDsse(payload, TYPE, newKeys(3));
    const env = {
      ...rogue,
      signatures: rogue.signatures.map((s, i) => ({ keyid: keys[i]?.keyid ?? '', sig: s.sig })),
    };
    expect(codeOf(() => verify(env))).toBe('SIGNATURE_INVALID');
  });

  it('refuses a signature set by keys of another role as THRESHOLD_NOT_MET, naming that role', () => {
    const freshness = newKey();
    const env = signDsse(payload, TYPE, [freshness]);
    let message = '';
    try {
      verify(env, { otherRoles: new Map([[freshness.keyid, 'freshness']]) });
    } catch (error) {
      expect((error as TrustError).code).toBe('THRESHOLD_NOT_MET');
      message = (error as Error).message;
    }
    expect(message).toContain('freshness key');
  });

  it('refuses signatures by retired keys only as KEY_RETIRED', () => {
    const old = newKeys(3);
    const env = signDsse(payload, TYPE, old);
    expect(codeOf(() => verify(env, { retired: new Set(old.map((k) => k.keyid)) }))).toBe(
      'KEY_RETIRED',
    );
  });

  it('refuses signatures by unknown keys as UNKNOWN_KEY', () => {
    expect(codeOf(() => verify(signDsse(payload, TYPE, newKeys(3))))).toBe('UNKNOWN_KEY');
  });

  it('refuses a valid threshold over another payload type as WRONG_PAYLOAD_TYPE', () => {
    const env = signDsse(payload, 'application/vnd.updates.freshness+json', keys.slice(0, 3));
    expect(codeOf(() => verify(env))).toBe('WRONG_PAYLOAD_TYPE');
  });

  it('verifies a 16-key role with threshold 3 when the signatures come last', () => {
    const many = newKeys(16);
    const big = roleOfKeys(many, 3);
    const env = signDsse(payload, TYPE, many.slice(13));
    expect(verifyRole(parsed(env), big, TYPE, 'release')).toHaveLength(3);
  });
});

describe('signDsse / addSignatures', () => {
  it('adds signatures made elsewhere over the same payload, so k signers can sign in turn', () => {
    let env = signDsse(payload, TYPE, [keys[0] as TestKey]);
    env = addSignatures(env, [keys[1] as TestKey]);
    env = addSignatures(env, [keys[2] as TestKey]);
    expect(verify(env)).toHaveLength(3);
    expect(env.payload).toBe(Buffer.from(payload).toString('base64'));
  });

  it('never adds a second signature by a key that already signed', () => {
    const env = addSignatures(signDsse(payload, TYPE, [keys[0] as TestKey]), [keys[0] as TestKey]);
    expect(env.signatures).toHaveLength(1);
  });
});
