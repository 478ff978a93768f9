/**
 * The test PKI (test/helpers/tls-cert.ts) makes certificates OpenSSL reads every time: the
 * serial number is a minimal positive DER INTEGER, whose random first bytes once made one
 * certificate in 256 unreadable ("illegal padding") and the TLS tests flaky.
 */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeTestPki } from '#test/tls-cert.js';

describe('makeTestPki', () => {
  it('makes 512 authorities and server certificates that all parse and chain', () => {
    for (let i = 0; i < 512; i += 1) {
      const pki = makeTestPki(['localhost']);
      const ca = new X509Certificate(pki.caPem);
      const cert = new X509Certificate(pki.certPem);
      expect(cert.checkIssued(ca)).toBe(true);
      expect(cert.verify(ca.publicKey)).toBe(true);
      const serial = Buffer.from(cert.serialNumber, 'hex');
      expect(serial[0]).toBeGreaterThanOrEqual(0x40);
      expect(serial[0]).toBeLessThan(0x80);
    }
  });
});
