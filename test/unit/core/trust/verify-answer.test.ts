/**
 * The verification of a manifest answer, step by step (docs/PROTOCOL.md §2.7.5): size cap and
 * structure, the key chain, the release under the release role, the freshness statement under
 * the freshness role, the statement against the rest, in that order; format 1 only while no
 * key set is trusted. verifyAnswer is a pure function of (bytes, state, clock, nonce).
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_STATE } from '#core/state.js';
import {
  needsKeyChain,
  pinKeys,
  verifyAnswer,
  verifyStoredManifest,
  type AnswerInput,
  type VerifiedManifest,
} from '#core/trust/verify.js';
import {
  addSignatures,
  encodeManifest,
  parseManifestAnswer,
  signEnvelope,
  type DsseEnvelope,
  type Release,
} from '#protocol';
import {
  answerOf,
  digestOf,
  newKeys,
  signFreshness,
  signRelease,
  statementFor,
  TestChain,
  type TestKey,
} from '#test/trust-kit.js';
import { updateCodeOf as codeOf } from '#test/answer-kit.js';
import { T0, text } from '#test/fakes.js';

const DAY_MS = 86_400_000;
const SKEW_MS = 300_000;
const SHA = 'a'.repeat(64);
const RELEASE: Release = {
  registry_version: '1.0.0',
  artifacts: [{ name: 'app.bin', size: 3, sha256: SHA, url: `api/updates/artifacts/${SHA}` }],
};

interface StatementOptions {
  readonly release?: DsseEnvelope;
  readonly keysVersion?: number;
  readonly sequence?: number;
  readonly issuedAtMs?: number;
  readonly lifetimeMs?: number;
  readonly nonce?: string;
  readonly signers?: readonly TestKey[];
}

/** A chain (release role 2 of 3), a release of RELEASE and statements over it. */
function world() {
  const chain = new TestChain(undefined, { release: newKeys(3), releaseThreshold: 2 });
  const signRel = (r: Release = RELEASE, signers?: readonly TestKey[]) =>
    signRelease(r, signers ?? chain.current.release.slice(0, 2));
  const release = signRel();
  const statement = (o: StatementOptions = {}) =>
    signFreshness(
      statementFor(
        o.release ?? release,
        o.keysVersion ?? chain.current.version,
        o.sequence ?? 5,
        o.issuedAtMs ?? T0 - 60_000,
        o.lifetimeMs ?? DAY_MS,
        o.nonce,
      ),
      o.signers ?? chain.current.freshness,
    );
  const input = (o: Partial<AnswerInput> = {}): AnswerInput => ({
    pinned: pinKeys([chain.pinned.hex]),
    trust: null,
    floor: null,
    nowMs: T0,
    maxFutureSkewMs: SKEW_MS,
    nonce: undefined,
    maxManifestBytes: 1 << 20,
    ...o,
  });
  /** The input of a client that accepted `verified` (its state after acceptance). */
  const after = (verified: VerifiedManifest, o: Partial<AnswerInput> = {}): AnswerInput =>
    input({ trust: verified.trust?.trust ?? null, floor: verified.trust?.floor ?? null, ...o });
  const answer = (
    o: { keys?: readonly DsseEnvelope[]; release?: DsseEnvelope; freshness?: DsseEnvelope } = {},
  ) => answerOf(o.keys ?? chain.links, o.release ?? release, o.freshness ?? statement());
  return { chain, release, signRel, statement, input, after, answer };
}

describe('verifyAnswer: format 2 accepted', () => {
  it('accepts an honest answer from the pinned key and says what to record', () => {
    const w = world();
    const verified = verifyAnswer(w.answer(), w.input());
    expect(verified.format).toBe(2);
    expect(verified.manifest.registry_version).toBe('1.0.0');
    expect(verified.manifest.artifacts).toEqual(RELEASE.artifacts);
    expect(verified.setId).toBe(digestOf(w.release));
    expect(verified.keyid).toBe(w.chain.current.release[0]?.keyid);
    expect(verified.manifest.expiresAtMs).toBe(T0 - 60_000 + DAY_MS);
    expect(verified.trust?.trust.keySet.version).toBe(1);
    expect(verified.trust?.floor).toEqual({ sequence: 5, releaseSha256: digestOf(w.release) });
    // What is kept for verify(): the release envelope alone.
    const kept = JSON.parse(new TextDecoder().decode(verified.envelope)) as DsseEnvelope;
    expect(kept).toEqual(w.release);
  });

  it('is a pure function of (bytes, state, clock, nonce): the same bytes verify the same way', () => {
    const w = world();
    const bytes = w.answer();
    const a = verifyAnswer(bytes, w.input());
    const b = verifyAnswer(bytes, w.input());
    expect(b).toEqual(a);
    // Fed again after acceptance (a cached answer), it is still accepted: same sequence, same release.
    expect(verifyAnswer(bytes, w.after(a)).setId).toBe(a.setId);
  });

  it('walks rotations from the trusted key set and retires the dropped keys', () => {
    const w = world();
    const first = verifyAnswer(w.answer(), w.input());
    const oldFreshness = w.chain.current.freshness[0]?.keyid;
    w.chain.rotate({ freshness: newKeys(1) });
    const verified = verifyAnswer(w.answer(), w.after(first));
    expect(verified.trust?.trust.keySet.version).toBe(2);
    expect(verified.trust?.trust.retired).toEqual([oldFreshness]);
  });
});

describe('verifyAnswer: step 1, size and structure', () => {
  it('refuses an answer over the size cap before parsing it (MANIFEST_TOO_LARGE)', () => {
    const w = world();
    const bytes = w.answer();
    expect(codeOf(() => verifyAnswer(bytes, w.input({ maxManifestBytes: bytes.length - 1 })))).toBe(
      'MANIFEST_TOO_LARGE',
    );
  });

  it('refuses bytes that are not JSON (ENVELOPE_MALFORMED) and an unknown format (MANIFEST_MALFORMED)', () => {
    const w = world();
    expect(codeOf(() => verifyAnswer(text('<html>'), w.input()))).toBe('ENVELOPE_MALFORMED');
    expect(codeOf(() => verifyAnswer(text('{"ok":true,"format":3}'), w.input()))).toBe(
      'MANIFEST_MALFORMED',
    );
    expect(codeOf(() => verifyAnswer(text('{"ok":true,"format":2,"keys":[]}'), w.input()))).toBe(
      'MANIFEST_MALFORMED',
    );
  });
});

describe('verifyAnswer: step 2, the key chain', () => {
  it('refuses a chain no pinned key signed (UNKNOWN_KEY)', () => {
    const w = world();
    const foreign = new TestChain();
    expect(codeOf(() => verifyAnswer(w.answer({ keys: foreign.links }), w.input()))).toBe(
      'UNKNOWN_KEY',
    );
  });

  it('refuses a rotation signed only by the new root (THRESHOLD_NOT_MET)', () => {
    const w = world();
    const first = verifyAnswer(w.answer(), w.input());
    const attacker = newKeys(1);
    w.chain.rotate({ root: attacker }, attacker);
    expect(codeOf(() => verifyAnswer(w.answer(), w.after(first)))).toBe('THRESHOLD_NOT_MET');
  });

  it('refuses links that skip a version (KEY_CHAIN_GAP)', () => {
    const w = world();
    const first = verifyAnswer(w.answer(), w.input());
    w.chain.rotate({ freshness: newKeys(1) });
    w.chain.rotate({ freshness: newKeys(1) });
    const [v1, , v3] = w.chain.links;
    expect(codeOf(() => verifyAnswer(w.answer({ keys: [v1!, v3!] }), w.after(first)))).toBe(
      'KEY_CHAIN_GAP',
    );
  });

  it('refuses a tampered link (SIGNATURE_INVALID)', () => {
    const w = world();
    const first = verifyAnswer(w.answer(), w.input());
    w.chain.rotate({ root: newKeys(1) });
    const link = w.chain.links[1] as DsseEnvelope;
    const sig = Buffer.from(link.signatures[0]?.sig ?? '', 'base64');
    sig[3] = (sig[3] ?? 0) ^ 1;
    const bad = {
      ...link,
      signatures: [{ ...link.signatures[0]!, sig: sig.toString('base64') }, link.signatures[1]!],
    };
    expect(
      codeOf(() => verifyAnswer(w.answer({ keys: [w.chain.links[0]!, bad] }), w.after(first))),
    ).toBe('SIGNATURE_INVALID');
  });

  it('the chain is checked before the release: a broken chain and a bad release give the chain code', () => {
    const w = world();
    const foreign = new TestChain();
    const badRelease = w.signRel(RELEASE, w.chain.current.release.slice(0, 1));
    expect(
      codeOf(() => verifyAnswer(w.answer({ keys: foreign.links, release: badRelease }), w.input())),
    ).toBe('UNKNOWN_KEY');
  });

  it('says when the answer cannot reach the trusted key set (needsKeyChain) and walks the whole chain given', () => {
    const w = world();
    const first = verifyAnswer(w.answer(), w.input());
    for (let i = 0; i < 3; i++) w.chain.rotate({ root: newKeys(1) });
    const tail = w.chain.links.slice(-2);
    const bytes = w.answer({ keys: tail });
    const parsed = parseManifestAnswer(bytes);
    if (parsed.format !== 2) throw new Error('format 2 expected');
    expect(needsKeyChain(parsed.keys, w.after(first))).toBe(true);
    expect(needsKeyChain(parsed.keys, w.input())).toBe(true);
    expect(needsKeyChain(parseKeys(w.answer()), w.after(first))).toBe(false);
    expect(codeOf(() => verifyAnswer(bytes, w.after(first)))).toBe('KEY_CHAIN_GAP');
    const whole = parseKeys(w.answer()); // every link, as GET /api/updates/keys answers
    expect(verifyAnswer(bytes, w.after(first), whole).trust?.trust.keySet.version).toBe(4);
    expect(verifyAnswer(bytes, w.input(), whole).trust?.trust.keySet.version).toBe(4);
  });
});

function parseKeys(bytes: Uint8Array) {
  const parsed = parseManifestAnswer(bytes);
  if (parsed.format !== 2) throw new Error('format 2 expected');
  return parsed.keys;
}

describe('verifyAnswer: step 3, the release role', () => {
  it('refuses a release below its threshold (THRESHOLD_NOT_MET)', () => {
    const w = world();
    const release = w.signRel(RELEASE, w.chain.current.release.slice(0, 1));
    const freshness = w.statement({ release });
    expect(codeOf(() => verifyAnswer(w.answer({ release, freshness }), w.input()))).toBe(
      'THRESHOLD_NOT_MET',
    );
  });

  it('refuses a release signed by the freshness key (THRESHOLD_NOT_MET)', () => {
    const w = world();
    const release = w.signRel(RELEASE, w.chain.current.freshness);
    const freshness = w.statement({ release });
    expect(codeOf(() => verifyAnswer(w.answer({ release, freshness }), w.input()))).toBe(
      'THRESHOLD_NOT_MET',
    );
  });

  it('refuses a release signed by retired release keys (KEY_RETIRED)', () => {
    const w = world();
    const first = verifyAnswer(w.answer(), w.input());
    const old = w.chain.current.release;
    w.chain.rotate({ release: newKeys(3) });
    const release = w.signRel({ ...RELEASE, registry_version: '2.0.0' }, old.slice(0, 2));
    const freshness = w.statement({ release });
    expect(codeOf(() => verifyAnswer(w.answer({ release, freshness }), w.after(first)))).toBe(
      'KEY_RETIRED',
    );
    // Co-signed by the new keys, the same release verifies.
    const cosigned = addSignatures(release, w.chain.current.release.slice(0, 2));
    expect(
      verifyAnswer(
        w.answer({ release: cosigned, freshness: w.statement({ release: cosigned, sequence: 6 }) }),
        w.after(first),
      ).manifest.registry_version,
    ).toBe('2.0.0');
  });

  it('refuses a tampered release (SIGNATURE_INVALID) and a malformed one (its payload code)', () => {
    const w = world();
    const evil = { ...RELEASE, artifacts: [{ ...RELEASE.artifacts[0]!, sha256: 'b'.repeat(64) }] };
    const tampered = { ...w.release, payload: signRelease(evil, []).payload };
    expect(codeOf(() => verifyAnswer(w.answer({ release: tampered }), w.input()))).toBe(
      'SIGNATURE_INVALID',
    );
    const unsafe = w.signRel({
      ...RELEASE,
      artifacts: [{ ...RELEASE.artifacts[0]!, name: '../x' }],
    });
    expect(
      codeOf(() =>
        verifyAnswer(
          w.answer({ release: unsafe, freshness: w.statement({ release: unsafe }) }),
          w.input(),
        ),
      ),
    ).toBe('UNSAFE_NAME');
  });
});

describe('verifyAnswer: step 4, the freshness role', () => {
  it('refuses a statement signed by a release key (THRESHOLD_NOT_MET)', () => {
    const w = world();
    const freshness = w.statement({ signers: w.chain.current.release.slice(0, 1) });
    expect(codeOf(() => verifyAnswer(w.answer({ freshness }), w.input()))).toBe(
      'THRESHOLD_NOT_MET',
    );
  });

  it('refuses a statement by an unknown key (UNKNOWN_KEY)', () => {
    const w = world();
    const freshness = w.statement({ signers: newKeys(1) });
    expect(codeOf(() => verifyAnswer(w.answer({ freshness }), w.input()))).toBe('UNKNOWN_KEY');
  });
});

describe('verifyAnswer: step 5, the statement against the rest', () => {
  it('refuses a statement over another release or key set (FRESHNESS_MISMATCH)', () => {
    const w = world();
    const other = w.signRel({ ...RELEASE, registry_version: '1.0.1' });
    expect(
      codeOf(() =>
        verifyAnswer(w.answer({ freshness: w.statement({ release: other }) }), w.input()),
      ),
    ).toBe('FRESHNESS_MISMATCH');
    expect(
      codeOf(() =>
        verifyAnswer(w.answer({ freshness: w.statement({ keysVersion: 2 }) }), w.input()),
      ),
    ).toBe('FRESHNESS_MISMATCH');
  });

  it('refuses a lower sequence (FRESHNESS_ROLLBACK), the same one for another release (EQUIVOCATION), and accepts the same one again', () => {
    const w = world();
    const first = verifyAnswer(w.answer({ freshness: w.statement({ sequence: 7 }) }), w.input());
    const lower = w.answer({ freshness: w.statement({ sequence: 6 }) });
    expect(codeOf(() => verifyAnswer(lower, w.after(first)))).toBe('FRESHNESS_ROLLBACK');
    const other = w.signRel({ ...RELEASE, registry_version: '1.0.1' });
    const split = w.answer({
      release: other,
      freshness: w.statement({ release: other, sequence: 7 }),
    });
    expect(codeOf(() => verifyAnswer(split, w.after(first)))).toBe('EQUIVOCATION');
    const again = w.answer({ freshness: w.statement({ sequence: 7, issuedAtMs: T0 }) });
    expect(verifyAnswer(again, w.after(first)).trust?.floor.sequence).toBe(7);
  });

  it('starts the sequence floor over when the freshness keys rotate (TUF §5.3.11)', () => {
    const w = world();
    const pushed = verifyAnswer(
      w.answer({ freshness: w.statement({ sequence: 2 ** 53 - 1 }) }),
      w.input(),
    );
    w.chain.rotate({ freshness: newKeys(1) });
    const verified = verifyAnswer(
      w.answer({ freshness: w.statement({ sequence: 1 }) }),
      w.after(pushed),
    );
    expect(verified.trust?.floor.sequence).toBe(1);
  });

  it('with a nonce sent, refuses a statement without it or with another (NONCE_MISMATCH)', () => {
    const w = world();
    const nonce = 'n'.repeat(22);
    expect(codeOf(() => verifyAnswer(w.answer(), w.input({ nonce })))).toBe('NONCE_MISMATCH');
    const other = w.answer({ freshness: w.statement({ nonce: 'm'.repeat(22) }) });
    expect(codeOf(() => verifyAnswer(other, w.input({ nonce })))).toBe('NONCE_MISMATCH');
    const signed = w.answer({ freshness: w.statement({ nonce }) });
    expect(codeOf(() => verifyAnswer(signed, w.input({ nonce })))).toBe('accepted');
    // Without a nonce sent, one in the statement is ignored.
    expect(codeOf(() => verifyAnswer(signed, w.input()))).toBe('accepted');
  });

  it('refuses an expired statement (MANIFEST_EXPIRED) and one from the future (MANIFEST_FROM_FUTURE), at the bounds', () => {
    const w = world();
    const expires = T0 - 60_000 + DAY_MS;
    expect(codeOf(() => verifyAnswer(w.answer(), w.input({ nowMs: expires - 1 })))).toBe(
      'accepted',
    );
    expect(codeOf(() => verifyAnswer(w.answer(), w.input({ nowMs: expires })))).toBe(
      'MANIFEST_EXPIRED',
    );
    const at = (issuedAtMs: number) => w.answer({ freshness: w.statement({ issuedAtMs }) });
    expect(codeOf(() => verifyAnswer(at(T0 + SKEW_MS), w.input()))).toBe('accepted');
    expect(codeOf(() => verifyAnswer(at(T0 + SKEW_MS + 1), w.input()))).toBe(
      'MANIFEST_FROM_FUTURE',
    );
  });

  it('checks in the documented order: mismatch, rollback, equivocation, nonce, expiry, future', () => {
    const w = world();
    const first = verifyAnswer(w.answer({ freshness: w.statement({ sequence: 7 }) }), w.input());
    const other = w.signRel({ ...RELEASE, registry_version: '1.0.1' });
    const old = T0 - 10 * DAY_MS;
    // Expired, a lower sequence and over another release: FRESHNESS_MISMATCH first.
    const a = w.answer({
      freshness: w.statement({ release: other, sequence: 6, issuedAtMs: old }),
    });
    expect(codeOf(() => verifyAnswer(a, w.after(first)))).toBe('FRESHNESS_MISMATCH');
    // Expired and lower: FRESHNESS_ROLLBACK.
    const b = w.answer({ freshness: w.statement({ sequence: 6, issuedAtMs: old }) });
    expect(codeOf(() => verifyAnswer(b, w.after(first)))).toBe('FRESHNESS_ROLLBACK');
    // Expired, the same sequence for another release: EQUIVOCATION.
    const c = w.answer({
      release: other,
      freshness: w.statement({ release: other, sequence: 7, issuedAtMs: old }),
    });
    expect(codeOf(() => verifyAnswer(c, w.after(first)))).toBe('EQUIVOCATION');
    // Expired and without the nonce: NONCE_MISMATCH.
    const d = w.answer({ freshness: w.statement({ sequence: 8, issuedAtMs: old }) });
    expect(codeOf(() => verifyAnswer(d, w.after(first, { nonce: 'n'.repeat(22) })))).toBe(
      'NONCE_MISMATCH',
    );
  });
});

describe('verifyAnswer: format 1', () => {
  const manifest = {
    registry_version: '1.0.0',
    issued_at: new Date(T0 - 60_000).toISOString(),
    expires_at: new Date(T0 + DAY_MS).toISOString(),
    artifacts: [],
  };
  const envelope = (key: TestKey) =>
    text(JSON.stringify(signEnvelope(encodeManifest(manifest), key.secretKey, key.publicKey)));

  it('is verified as in §2.5 while no key set is trusted', () => {
    const w = world();
    const verified = verifyAnswer(envelope(w.chain.pinned), w.input());
    expect(verified.format).toBe(1);
    expect(verified.trust).toBeUndefined();
  });

  it('is a downgrade once a key set is trusted (FORMAT_DOWNGRADE)', () => {
    const w = world();
    const first = verifyAnswer(w.answer(), w.input());
    expect(codeOf(() => verifyAnswer(envelope(w.chain.pinned), w.after(first)))).toBe(
      'FORMAT_DOWNGRADE',
    );
  });

  it('is refused when a nonce was sent (NONCE_MISMATCH)', () => {
    const w = world();
    expect(
      codeOf(() => verifyAnswer(envelope(w.chain.pinned), w.input({ nonce: 'n'.repeat(22) }))),
    ).toBe('NONCE_MISMATCH');
  });
});

describe('verifyStoredManifest (what verify() re-checks)', () => {
  it('re-verifies a stored release under the trusted key set, and refuses it with no key set trusted', () => {
    const w = world();
    const verified = verifyAnswer(w.answer(), w.input());
    const state = { ...EMPTY_STATE, trust: verified.trust?.trust ?? null };
    const record = verifyStoredManifest(verified.envelope, state, w.input().pinned);
    expect(record).toEqual({
      version: '1.0.0',
      artifacts: RELEASE.artifacts,
      digest: verified.setId,
    });
    expect(
      codeOf(() => verifyStoredManifest(verified.envelope, EMPTY_STATE, w.input().pinned)),
    ).toBe('STATE_CORRUPT');
    // After a release key rotation the old signatures alone no longer count.
    w.chain.rotate({ release: newKeys(3) });
    const rotated = verifyAnswer(
      w.answer({ release: addSignatures(w.release, w.chain.current.release.slice(0, 2)) }),
      w.after(verified),
    );
    const next = { ...EMPTY_STATE, trust: rotated.trust?.trust ?? null };
    expect(codeOf(() => verifyStoredManifest(verified.envelope, next, w.input().pinned))).toBe(
      'KEY_RETIRED',
    );
    expect(verifyStoredManifest(rotated.envelope, next, w.input().pinned).digest).toBe(
      verified.setId,
    );
  });
});
