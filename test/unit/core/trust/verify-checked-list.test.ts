/**
 * The artifact list of a payload already checked (docs/UPDATER.md §3, No-op runs): when the
 * signed payload's SHA-256 is the installed set's id (`AnswerInput.checkedDigest`), its list
 * is not walked again; everything else about the answer is verified as for any answer.
 * These payloads break a list rule on purpose (an unsafe name), so a skipped walk shows.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EMPTY_STATE } from '#core/state.js';
import { pinKeys, trustInputOf, verifyAnswer, type AnswerInput } from '#core/trust/verify.js';
import { encodeManifest, signEnvelope, type Manifest, type ManifestArtifact } from '#protocol';
import {
  answerOf,
  digestOf,
  signFreshness,
  signRelease,
  statementFor,
  TestChain,
} from '#test/trust-kit.js';
import { FIRST_CONTACT, updateCodeOf as codeOf } from '#test/answer-kit.js';
import { T0, text } from '#test/fakes.js';

const DAY_MS = 86_400_000;
const entry = (name: string): ManifestArtifact => ({
  name,
  size: 3,
  sha256: 'a'.repeat(64),
  url: `api/updates/artifacts/${'a'.repeat(64)}`,
});
/** A name that climbs out of the install root: UNSAFE_NAME when the list is walked. */
const UNSAFE = [entry('../a.bin')];

const chain = new TestChain();
const input = (o: Partial<AnswerInput> = {}): AnswerInput => ({
  pinned: pinKeys([chain.pinned.hex]),
  ...FIRST_CONTACT,
  ...o,
});

function formatOne(manifest: Partial<Manifest> = {}): { bytes: Uint8Array; digest: string } {
  const payload = encodeManifest({
    registry_version: '1.0.0',
    issued_at: new Date(T0 - 60_000).toISOString(),
    expires_at: new Date(T0 + DAY_MS).toISOString(),
    artifacts: UNSAFE,
    ...manifest,
  });
  const key = chain.pinned;
  return {
    bytes: text(JSON.stringify(signEnvelope(payload, key.secretKey, key.publicKey))),
    digest: createHash('sha256').update(payload).digest('hex'),
  };
}

describe('verifyAnswer with checkedDigest: format 1', () => {
  it('walks the list of a payload that is not the installed one', () => {
    const { bytes } = formatOne();
    expect(codeOf(() => verifyAnswer(bytes, input()))).toBe('UNSAFE_NAME');
    const other = input({ checkedDigest: 'b'.repeat(64) });
    expect(codeOf(() => verifyAnswer(bytes, other))).toBe('UNSAFE_NAME');
  });

  it('takes the list of the installed payload as it was checked then', () => {
    const { bytes, digest } = formatOne();
    const verified = verifyAnswer(bytes, input({ checkedDigest: digest }));
    expect(verified.setId).toBe(digest);
    expect(verified.manifest.artifacts).toEqual(UNSAFE);
  });

  it('still checks the signature of the installed payload', () => {
    const { bytes, digest } = formatOne();
    const envelope = JSON.parse(new TextDecoder().decode(bytes)) as {
      signatures: { keyid: string; sig: string }[];
    };
    const sig = Buffer.from(envelope.signatures[0]?.sig ?? '', 'base64');
    sig[0] = (sig[0] ?? 0) ^ 1;
    envelope.signatures = [
      { keyid: envelope.signatures[0]?.keyid ?? '', sig: sig.toString('base64') },
    ];
    const forged = text(JSON.stringify(envelope));
    expect(codeOf(() => verifyAnswer(forged, input({ checkedDigest: digest })))).toBe(
      'SIGNATURE_INVALID',
    );
  });

  it('still checks the top-level fields of the installed payload', () => {
    const { bytes, digest } = formatOne({ expires_at: 'tomorrow' });
    expect(codeOf(() => verifyAnswer(bytes, input({ checkedDigest: digest })))).toBe(
      'MANIFEST_MALFORMED',
    );
  });
});

describe('verifyAnswer with checkedDigest: format 2', () => {
  const release = signRelease({ registry_version: '1.0.0', artifacts: UNSAFE }, [
    ...chain.current.release,
  ]);
  const statement = (issuedAtMs: number) =>
    signFreshness(statementFor(release, chain.current.version, 5, issuedAtMs, DAY_MS), [
      ...chain.current.freshness,
    ]);
  const answer = (issuedAtMs = T0 - 60_000) =>
    answerOf(chain.links, release, statement(issuedAtMs));

  it('walks the list of a release that is not the installed one', () => {
    expect(codeOf(() => verifyAnswer(answer(), input()))).toBe('UNSAFE_NAME');
  });

  it('takes the list of the installed release as it was checked then', () => {
    const verified = verifyAnswer(answer(), input({ checkedDigest: digestOf(release) }));
    expect(verified.setId).toBe(digestOf(release));
    expect(verified.manifest.artifacts).toEqual(UNSAFE);
  });

  it('still checks the freshness of an answer over the installed release', () => {
    const stale = answer(T0 - 2 * DAY_MS);
    expect(codeOf(() => verifyAnswer(stale, input({ checkedDigest: digestOf(release) })))).toBe(
      'MANIFEST_EXPIRED',
    );
  });
});

describe('trustInputOf: the checked digest comes from the installed set', () => {
  it('is the installed setId, and none before a first install', () => {
    expect(trustInputOf(EMPTY_STATE).checkedDigest).toBeUndefined();
    const { bytes, digest } = formatOne();
    const state = {
      ...EMPTY_STATE,
      installed: { setId: digest, version: '1.0.0', artifacts: [] },
    };
    expect(trustInputOf(state).checkedDigest).toBe(digest);
    // What a run verifies with: the installed payload's list is taken as checked then.
    expect(codeOf(() => verifyAnswer(bytes, input(trustInputOf(state))))).toBe('accepted');
    expect(codeOf(() => verifyAnswer(bytes, input(trustInputOf(EMPTY_STATE))))).toBe('UNSAFE_NAME');
  });
});
