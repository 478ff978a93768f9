import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import { checkPolicy, recordAcceptance } from '#core/trust/policy.js';
import { EMPTY_STATE, MAX_ACCEPTED_DIGESTS, type UpdaterState } from '#core/state.js';
import { pinKeys, verifyManifest, type VerifiedManifest } from '#core/trust/verify.js';
import { envelopeBytes, manifestOf, T0, testKey, text } from '#test/fakes.js';

const key = testKey();
const BASE = 'http://127.0.0.1:1/';
const files = [{ name: 'app.bin', content: text('hello') }];

function vmOf(
  version: string,
  opts: Parameters<typeof manifestOf>[2] = {},
  content = files,
): VerifiedManifest {
  return verifyManifest(
    envelopeBytes(manifestOf(version, content, opts), key),
    pinKeys([key.hex]),
    1 << 20,
  );
}

function refusal(
  verified: VerifiedManifest,
  state: UpdaterState = EMPTY_STATE,
  limits = DEFAULT_LIMITS,
): string {
  try {
    checkPolicy(verified, state, T0, limits, BASE);
  } catch (error) {
    expect(error).toBeInstanceOf(UpdateError);
    return (error as UpdateError).code;
  }
  return 'accepted';
}

describe('checkPolicy', () => {
  it('accepts a fresh manifest on an empty state', () => {
    expect(refusal(vmOf('1.0.0'))).toBe('accepted');
  });

  it('refuses an expired manifest (MANIFEST_EXPIRED)', () => {
    expect(refusal(vmOf('1.0.0', { issuedAtMs: T0 - 2000, expiresAtMs: T0 - 1000 }))).toBe(
      'MANIFEST_EXPIRED',
    );
  });

  it('refuses a manifest expiring exactly now (MANIFEST_EXPIRED)', () => {
    expect(refusal(vmOf('1.0.0', { issuedAtMs: T0 - 2000, expiresAtMs: T0 }))).toBe(
      'MANIFEST_EXPIRED',
    );
  });

  it('refuses issued_at beyond the allowed clock skew (MANIFEST_FROM_FUTURE)', () => {
    const issued = T0 + DEFAULT_LIMITS.maxFutureSkewMs + 1000;
    expect(refusal(vmOf('1.0.0', { issuedAtMs: issued, expiresAtMs: issued + 10_000 }))).toBe(
      'MANIFEST_FROM_FUTURE',
    );
  });

  it("says what this machine's clock read when it refuses on time (a clock years off shows)", () => {
    const stale = vmOf('1.0.0', { issuedAtMs: T0 - 2000, expiresAtMs: T0 - 1000 });
    const early = vmOf('1.0.0', { issuedAtMs: T0 + 10 * DEFAULT_LIMITS.maxFutureSkewMs });
    const clock = `this machine's clock reads ${new Date(T0).toISOString()}`;
    expect(() => checkPolicy(stale, EMPTY_STATE, T0, DEFAULT_LIMITS, BASE)).toThrow(clock);
    expect(() => checkPolicy(early, EMPTY_STATE, T0, DEFAULT_LIMITS, BASE)).toThrow(clock);
  });

  it('tolerates issued_at slightly ahead, within the skew', () => {
    expect(refusal(vmOf('1.0.0', { issuedAtMs: T0 + 1000 }))).toBe('accepted');
  });

  it('refuses a version below the highest ever accepted (ROLLBACK)', () => {
    const state = recordAcceptance(EMPTY_STATE, vmOf('2.0.0'));
    expect(refusal(vmOf('1.9.9'), state)).toBe('ROLLBACK');
  });

  it('checks rollback against the persisted floor, not the installed version', () => {
    const state = { ...recordAcceptance(EMPTY_STATE, vmOf('2.0.0')), installed: null };
    expect(refusal(vmOf('1.5.0'), state)).toBe('ROLLBACK');
  });

  it('refuses the same version with a different payload (EQUIVOCATION)', () => {
    const state = recordAcceptance(EMPTY_STATE, vmOf('2.0.0'));
    const twin = vmOf('2.0.0', {}, [{ name: 'app.bin', content: text('evil') }]);
    expect(refusal(twin, state)).toBe('EQUIVOCATION');
  });

  it('accepts the very same manifest again (a retried or resumed run)', () => {
    const verified = vmOf('2.0.0');
    expect(refusal(verified, recordAcceptance(EMPTY_STATE, verified))).toBe('accepted');
  });

  it('refuses more artifacts than the limit (TOO_MANY_ARTIFACTS)', () => {
    expect(refusal(vmOf('1.0.0'), EMPTY_STATE, { ...DEFAULT_LIMITS, maxArtifacts: 0 })).toBe(
      'TOO_MANY_ARTIFACTS',
    );
  });

  it('refuses an artifact over the size limit (ARTIFACT_TOO_LARGE)', () => {
    expect(refusal(vmOf('1.0.0'), EMPTY_STATE, { ...DEFAULT_LIMITS, maxArtifactBytes: 4 })).toBe(
      'ARTIFACT_TOO_LARGE',
    );
  });

  it('refuses an artifact URL with a non-http scheme (MANIFEST_MALFORMED)', () => {
    const m = manifestOf('1.0.0', files);
    const bad = { ...m, artifacts: [{ ...m.artifacts[0]!, url: 'file:///etc/passwd' }] };
    const verified = verifyManifest(envelopeBytes(bad, key), pinKeys([key.hex]), 1 << 20);
    expect(refusal(verified)).toBe('MANIFEST_MALFORMED');
  });
});

describe('recordAcceptance', () => {
  it('raises the floor and records the digest per version', () => {
    const verified = vmOf('1.2.0');
    const state = recordAcceptance(EMPTY_STATE, verified);
    expect(state.highestAcceptedVersion).toBe('1.2.0');
    expect(state.acceptedDigests['1.2.0']).toBe(verified.setId);
  });

  it('never lowers the floor', () => {
    const state = recordAcceptance(recordAcceptance(EMPTY_STATE, vmOf('3.0.0')), vmOf('3.0.0'));
    expect(state.highestAcceptedVersion).toBe('3.0.0');
  });

  it(`keeps at most ${MAX_ACCEPTED_DIGESTS} digests, forgetting the oldest versions`, () => {
    const digests: Record<string, string> = {};
    for (let i = 0; i < MAX_ACCEPTED_DIGESTS; i++) digests[`0.0.${i}`] = 'a'.repeat(64);
    const state = recordAcceptance(
      { ...EMPTY_STATE, acceptedDigests: digests, highestAcceptedVersion: '0.0.999' },
      vmOf('1.0.0'),
    );
    expect(Object.keys(state.acceptedDigests)).toHaveLength(MAX_ACCEPTED_DIGESTS);
    expect(state.acceptedDigests['0.0.0']).toBeUndefined();
    expect(state.acceptedDigests['1.0.0']).toBeDefined();
  });
});

describe('artifact URL schemes', () => {
  it('refuses a bad authority after good ones on the same manifest (each authority is parsed)', () => {
    const m = manifestOf('1.0.0', files);
    const first = m.artifacts[0]!;
    const artifacts = [
      { ...first, name: 'a', url: 'https://cdn.example/a' },
      { ...first, name: 'b', url: 'https://cdn.example/b' },
      { ...first, name: 'c', url: 'https://cdn.example:70000/c' },
    ];
    const verified = verifyManifest(
      envelopeBytes({ ...m, artifacts }, key),
      pinKeys([key.hex]),
      1 << 20,
    );
    expect(refusal(verified)).toBe('MANIFEST_MALFORMED');
  });

  it('parses an authority that only begins like the one before it (the shared-origin fast path)', () => {
    const m = manifestOf('1.0.0', files);
    const first = m.artifacts[0]!;
    for (const second of ['https://cdn.example bad/b', 'https://cdn.example.:99999/b']) {
      const artifacts = [
        { ...first, name: 'a', url: 'https://cdn.example/a' },
        { ...first, name: 'b', url: second },
      ];
      const bytes = envelopeBytes({ ...m, artifacts }, key);
      const verified = verifyManifest(bytes, pinKeys([key.hex]), 1 << 20);
      expect(refusal(verified)).toBe('MANIFEST_MALFORMED');
    }
  });

  for (const url of [
    ' javascript:alert(1)',
    'j\tavascript:x',
    'data:text/plain,hi',
    'ftp://x/y',
    // Signed but unparsable: refused at check time, never a TypeError at pull time.
    'http://[bad',
    'http://a b/c',
    // Plain paths under an unparsable authority: the authority alone decides.
    'http://a b/plain/path',
    'https://host:99999/f.bin',
    'http://1.2.3.999/f.bin',
  ]) {
    it(`refuses ${JSON.stringify(url)} (MANIFEST_MALFORMED)`, () => {
      const m = manifestOf('1.0.0', files);
      const bad = { ...m, artifacts: [{ ...m.artifacts[0]!, url }] };
      const verified = verifyManifest(envelopeBytes(bad, key), pinKeys([key.hex]), 1 << 20);
      expect(refusal(verified)).toBe('MANIFEST_MALFORMED');
    });
  }

  for (const url of [
    'api/updates/artifacts/abc',
    'https://cdn.example/x',
    '//cdn.example/x',
    '/abs/path',
  ]) {
    it(`accepts ${JSON.stringify(url)}`, () => {
      const m = manifestOf('1.0.0', files);
      const ok = { ...m, artifacts: [{ ...m.artifacts[0]!, url }] };
      const verified = verifyManifest(envelopeBytes(ok, key), pinKeys([key.hex]), 1 << 20);
      expect(refusal(verified)).toBe('accepted');
    });
  }
});
