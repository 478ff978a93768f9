/**
 * src/protocol/ed25519.ts against Project Wycheproof's Ed25519 verification vectors, all 151
 * cases, in the strict mode the module verifies in (RFC 8032, not ZIP-215): every "valid"
 * signature verifies and every "invalid" one is refused. The file is kept as published:
 * https://github.com/C2SP/wycheproof/blob/main/testvectors_v1/ed25519_test.json
 * (Apache-2.0, test/vectors/WYCHEPROOF-LICENSE; provenance in test/vectors/README.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyEd25519 } from '#protocol/ed25519.js';

interface WycheproofCase {
  readonly tcId: number;
  readonly comment: string;
  readonly flags: readonly string[];
  readonly msg: string;
  readonly sig: string;
  readonly result: 'valid' | 'invalid' | 'acceptable';
}

interface WycheproofFile {
  readonly algorithm: string;
  readonly numberOfTests: number;
  readonly testGroups: readonly {
    readonly type: string;
    readonly publicKey: { readonly curve: string; readonly pk: string };
    readonly tests: readonly WycheproofCase[];
  }[];
}

const bytes = readFileSync(new URL('../../vectors/wycheproof-ed25519_test.json', import.meta.url));
const file = JSON.parse(bytes.toString('utf8')) as WycheproofFile;
const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const cases = file.testGroups.flatMap((group) =>
  group.tests.map((test) => ({ ...test, pk: group.publicKey.pk })),
);

describe('Wycheproof Ed25519 (strict verification)', () => {
  it('holds the upstream file unmodified: 151 EddsaVerify cases on edwards25519', () => {
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(
      '752d2ea7d7c6cf4736381b6cbacb61f8182b126ab7cd9b058f00c50084975536',
    );
    expect(file.algorithm).toBe('EDDSA');
    expect(file.numberOfTests).toBe(151);
    expect(cases).toHaveLength(151);
    for (const group of file.testGroups) {
      expect(group.type).toBe('EddsaVerify');
      expect(group.publicKey.curve).toBe('edwards25519');
    }
    // No "acceptable" cases: strict mode has a single right answer for each one.
    expect(new Set(cases.map((c) => c.result))).toEqual(new Set(['valid', 'invalid']));
  });

  for (const c of cases) {
    const label = `tcId ${c.tcId}: ${c.result}${c.comment === '' ? '' : ` (${c.comment})`} [${c.flags.join(', ')}]`;
    it(label, () => {
      expect(verifyEd25519(hex(c.sig), hex(c.msg), hex(c.pk))).toBe(c.result === 'valid');
    });
  }
});
