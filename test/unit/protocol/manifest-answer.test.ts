import { describe, expect, it } from 'vitest';
import { MANIFEST_PAYLOAD_TYPE, signEnvelope } from '#protocol/envelope.js';
import { generateKeyPair } from '#protocol/ed25519.js';
import {
  answerFrame,
  encodeKeysAnswer,
  encodeManifestAnswer,
  MAX_KEY_LINKS,
  parseKeysAnswer,
  parseManifestAnswer,
} from '#protocol/manifest-answer.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { newKeys, signFreshness, signRelease, statementFor, TestChain } from '#test/trust-kit.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';
const codeOf = (run: () => unknown): string | undefined => codeOfAny(run, ProtocolError);

const chain = new TestChain();
chain.rotate({ freshness: newKeys(1) });
const release = signRelease({ registry_version: '1.0.0', artifacts: [] }, chain.current.release);
const freshness = signFreshness(
  statementFor(release, 2, 1, Date.UTC(2026, 0, 1)),
  chain.current.freshness,
);
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('parseManifestAnswer', () => {
  it('parses a format 2 answer into its three signed parts', () => {
    const answer = parseManifestAnswer(
      encodeManifestAnswer({ keys: chain.links, release }, freshness),
    );
    if (answer.format !== 2) throw new Error('expected format 2');
    expect(answer.keys).toHaveLength(2);
    expect(Buffer.from(answer.release.payload).toString('base64')).toBe(release.payload);
    expect(Buffer.from(answer.freshness.payload).toString('base64')).toBe(freshness.payload);
  });

  it('reads an answer without "format" as the single-key envelope (format 1)', () => {
    const { secretKey, publicKey } = generateKeyPair();
    const legacy = signEnvelope(new TextEncoder().encode('{}'), secretKey, publicKey);
    const answer = parseManifestAnswer(bytesOf(legacy));
    expect(answer.format).toBe(1);
    if (answer.format === 1) expect(answer.envelope.payloadType).toBe(MANIFEST_PAYLOAD_TYPE);
  });

  it('keeps a format 1 envelope at the top level for older clients, and parses as format 2', () => {
    const { secretKey, publicKey } = generateKeyPair();
    const legacy = signEnvelope(new TextEncoder().encode('{}'), secretKey, publicKey);
    const bytes = encodeManifestAnswer({ keys: chain.links, release, legacy }, freshness);
    const json = JSON.parse(text(bytes)) as Record<string, unknown>;
    expect(json.payload).toBe(legacy.payload);
    expect(json.signatures).toEqual(legacy.signatures);
    expect(parseManifestAnswer(bytes).format).toBe(2);
  });

  it('frames the answer so only the freshness part changes between re-signs', () => {
    const { head, tail } = answerFrame({ keys: chain.links, release });
    const whole = encodeManifestAnswer({ keys: chain.links, release }, freshness);
    expect(text(whole)).toBe(`${text(head)}${JSON.stringify(freshness)}${text(tail)}`);
    expect(text(head).startsWith('{"ok":true,"format":2,"keys":[')).toBe(true);
  });

  const good = JSON.parse(
    text(encodeManifestAnswer({ keys: chain.links, release }, freshness)),
  ) as Record<string, unknown>;
  const refusals: [string, unknown, string][] = [
    ['an unknown format', { ...good, format: 3 }, 'MANIFEST_MALFORMED'],
    ['format as a string', { ...good, format: '2' }, 'MANIFEST_MALFORMED'],
    ['no keys', { ...good, keys: [] }, 'MANIFEST_MALFORMED'],
    ['keys that are not a list', { ...good, keys: {} }, 'MANIFEST_MALFORMED'],
    [
      `more than ${MAX_KEY_LINKS} keys`,
      { ...good, keys: Array.from({ length: MAX_KEY_LINKS + 1 }, () => chain.links[0]) },
      'MANIFEST_MALFORMED',
    ],
    ['a missing release', { ...good, release: undefined }, 'MANIFEST_MALFORMED'],
    ['a missing freshness', { ...good, freshness: undefined }, 'MANIFEST_MALFORMED'],
    ['a release that is not an envelope', { ...good, release: 'x' }, 'ENVELOPE_MALFORMED'],
    [
      'a freshness envelope with junk base64',
      { ...good, freshness: { ...freshness, payload: 'e30' } },
      'ENVELOPE_MALFORMED',
    ],
    ['a key set that is not an envelope', { ...good, keys: [1] }, 'ENVELOPE_MALFORMED'],
  ];
  for (const [what, value, code] of refusals) {
    it(`refuses ${what} with ${code}`, () => {
      expect(codeOf(() => parseManifestAnswer(bytesOf(value)))).toBe(code);
    });
  }

  it('refuses bytes that are not JSON with ENVELOPE_MALFORMED (as format 1 did)', () => {
    expect(codeOf(() => parseManifestAnswer(new TextEncoder().encode('<html>')))).toBe(
      'ENVELOPE_MALFORMED',
    );
  });
});

describe('parseKeysAnswer', () => {
  it('round-trips encodeKeysAnswer', () => {
    expect(parseKeysAnswer(encodeKeysAnswer(chain.links))).toHaveLength(2);
  });

  it('refuses an answer without keys with MANIFEST_MALFORMED', () => {
    expect(codeOf(() => parseKeysAnswer(bytesOf({ ok: true })))).toBe('MANIFEST_MALFORMED');
  });
});
