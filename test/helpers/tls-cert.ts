/**
 * A throwaway certificate authority and a server certificate it signed, made in memory for
 * the https tests and benches: ECDSA P-256, SHA-256, the server's names as subjectAltName
 * (127.0.0.1, ::1 and localhost by default). Built here with node:crypto and a few DER rules
 * (ITU-T X.690), so no test depends on an `openssl` binary, and no private key is ever
 * committed: every run makes its own.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

export interface TestPki {
  /** The authority's certificate (PEM): what a client trusts. */
  readonly caPem: string;
  /** The server's certificate (PEM), signed by the authority. */
  readonly certPem: string;
  /** The server's private key (PKCS #8 PEM). */
  readonly keyPem: string;
}

/** One DER element: tag, definite length, contents. */
function der(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else if (n < 0x100) length = Buffer.from([0x81, n]);
  else if (n < 0x10000) length = Buffer.from([0x82, n >> 8, n & 0xff]);
  else throw new Error('DER element too long for a test certificate');
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const seq = (...items: Buffer[]): Buffer => der(0x30, ...items);
const set = (...items: Buffer[]): Buffer => der(0x31, ...items);

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const value of rest) {
    const groups = [value & 0x7f];
    for (let v = value >>> 7; v > 0; v >>>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return der(0x06, Buffer.from(bytes));
}

/** A positive INTEGER from unsigned big-endian bytes. */
function integer(bytes: Buffer): Buffer {
  return der(
    0x02,
    bytes[0] !== undefined && bytes[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes,
  );
}

/** UTCTime (YYMMDDHHMMSSZ), valid for the years 1950-2049 that test certificates use. */
function utcTime(date: Date): Buffer {
  const iso = date.toISOString();
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return der(0x17, Buffer.from(text, 'ascii'));
}

const name = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn)))));
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [der(0x01, Buffer.from([0xff]))] : []), der(0x04, value));
}

/** subjectAltName: iPAddress ([7]) for IP literals, dNSName ([2]) for the rest. */
function altNames(names: readonly string[]): Buffer {
  return seq(
    ...names.map((n) => {
      const family = isIP(n);
      if (family === 4) return der(0x87, Buffer.from(n.split('.').map(Number)));
      if (family === 6) return der(0x87, ipv6Bytes(n));
      return der(0x82, Buffer.from(n, 'ascii'));
    }),
  );
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const parts = (s: string): number[] => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const left = parts(head);
  const right = parts(tail);
  const words = address.includes('::')
    ? [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
    : left;
  const out = Buffer.alloc(16);
  words.forEach((w, i) => out.writeUInt16BE(w, 2 * i));
  return out;
}

interface CertInput {
  readonly subject: string;
  readonly issuer: string;
  readonly subjectKey: KeyObject;
  readonly signingKey: KeyObject;
  readonly ca: boolean;
  readonly names: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
}

function certificate(input: CertInput): string {
  const spki = input.subjectKey.export({ type: 'spki', format: 'der' });
  const extensions = input.ca
    ? [
        extension('2.5.29.19', true, seq(der(0x01, Buffer.from([0xff])))),
        // keyUsage: keyCertSign (bit 5) and cRLSign (bit 6).
        extension('2.5.29.15', true, der(0x03, Buffer.from([0x01, 0x06]))),
      ]
    : [
        extension('2.5.29.19', true, seq()),
        // keyUsage: digitalSignature (bit 0); extKeyUsage: serverAuth.
        extension('2.5.29.15', true, der(0x03, Buffer.from([0x07, 0x80]))),
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
        extension('2.5.29.17', false, altNames(input.names)),
      ];
  const serial = randomBytes(16);
  // Positive and minimal (X.690 §8.3.2): a first byte of 0x00 followed by one below 0x80 is
  // an "illegal padding" that OpenSSL refuses, which made one certificate in 256 unreadable.
  serial[0] = 0x40 | ((serial[0] ?? 0) & 0x3f);
  const tbs = seq(
    der(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    ECDSA_SHA256,
    name(input.issuer),
    seq(utcTime(input.notBefore), utcTime(input.notAfter)),
    name(input.subject),
    spki,
    der(0xa3, seq(...extensions)),
  );
  const signature = sign('sha256', tbs, input.signingKey);
  const cert = seq(tbs, ECDSA_SHA256, der(0x03, Buffer.from([0]), signature));
  const lines = cert.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** A new authority and a server certificate for `names`, valid from an hour ago for a day. */
export function makeTestPki(names: readonly string[] = ['127.0.0.1', '::1', 'localhost']): TestPki {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const server = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const notBefore = new Date(now - 3_600_000);
  const notAfter = new Date(now + 86_400_000);
  const issuer = 'verified-updater test CA';
  return {
    caPem: certificate({
      subject: issuer,
      issuer,
      subjectKey: ca.publicKey,
      signingKey: ca.privateKey,
      ca: true,
      names: [],
      notBefore,
      notAfter,
    }),
    certPem: certificate({
      subject: names[0] ?? 'localhost',
      issuer,
      subjectKey: server.publicKey,
      signingKey: ca.privateKey,
      ca: false,
      names,
      notBefore,
      notAfter,
    }),
    keyPem: server.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
