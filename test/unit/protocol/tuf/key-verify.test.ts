import { constants, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSupportedKey, verifySignature, type TufKey } from '#protocol/tuf/index.js';

const message = new TextEncoder().encode('{"_type":"root"}');

function pem(key: KeyObject): string {
  return key.export({ format: 'pem', type: 'spki' }).toString();
}

function ed25519(): { key: TufKey; sig: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const hex = spki.subarray(spki.length - 32).toString('hex');
  const key = { keyid: 'k', keytype: 'ed25519', scheme: 'ed25519', publicValue: hex };
  return { key, sig: sign(null, message, privateKey).toString('hex') };
}

function ecdsa(curve: string, keytype = 'ecdsa'): { key: TufKey; sig: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
  const key = { keyid: 'k', keytype, scheme: 'ecdsa-sha2-nistp256', publicValue: pem(publicKey) };
  return { key, sig: sign('sha256', message, privateKey).toString('hex') };
}

function rsaPss(saltLength: number): { key: TufKey; sig: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = {
    keyid: 'k',
    keytype: 'rsa',
    scheme: 'rsassa-pss-sha256',
    publicValue: pem(publicKey),
  };
  const sig = sign('sha256', message, {
    key: privateKey,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength,
  });
  return { key, sig: sig.toString('hex') };
}

function tampered(sig: string): string {
  const last = sig.slice(-2) === '00' ? '01' : '00';
  return sig.slice(0, -2) + last;
}

describe('verifySignature (TUF spec §4.2 key types and schemes)', () => {
  it.each([
    ['ed25519', ed25519()],
    ['ecdsa / ecdsa-sha2-nistp256', ecdsa('P-256')],
    ['ecdsa-sha2-nistp256 keytype', ecdsa('P-256', 'ecdsa-sha2-nistp256')],
    ['rsa / rsassa-pss-sha256, salt = digest length', rsaPss(32)],
    ['rsa / rsassa-pss-sha256, maximal salt', rsaPss(constants.RSA_PSS_SALTLEN_MAX_SIGN)],
  ])('%s: accepts a good signature and refuses a changed one or message', (_name, { key, sig }) => {
    expect(isSupportedKey(key)).toBe(true);
    expect(verifySignature(key, sig, message)).toBe(true);
    expect(verifySignature(key, tampered(sig), message)).toBe(false);
    expect(verifySignature(key, sig, new TextEncoder().encode('{}'))).toBe(false);
  });

  it('ignores a P-384 key under the nistp256 scheme', () => {
    const { key, sig } = ecdsa('P-384');
    expect(isSupportedKey(key)).toBe(false);
    expect(verifySignature(key, sig, message)).toBe(false);
  });

  it('ignores unknown key types and schemes without throwing', () => {
    const { key, sig } = ed25519();
    expect(verifySignature({ ...key, keytype: 'sphincs' }, sig, message)).toBe(false);
    expect(verifySignature({ ...key, scheme: 'ed448' }, sig, message)).toBe(false);
    expect(verifySignature({ ...key, publicValue: undefined }, sig, message)).toBe(false);
    expect(verifySignature({ ...key, publicValue: 'zz' }, sig, message)).toBe(false);
  });

  it('refuses a signature that is not lowercase hex', () => {
    const { key, sig } = ed25519();
    expect(verifySignature(key, sig.toUpperCase(), message)).toBe(false);
    expect(verifySignature(key, `${sig}0`, message)).toBe(false);
  });
});
