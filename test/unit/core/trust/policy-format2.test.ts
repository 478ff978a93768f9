/**
 * Step 6 of docs/PROTOCOL.md §2.7.5 on a format 2 release: ROLLBACK below the highest accepted
 * registry_version, EQUIVOCATION for another release digest at one registry_version (a new
 * freshness statement over the same release is normal), the format 1 migration rule of §2.7.7,
 * and what acceptance records (one state, written once).
 */
import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { DEFAULT_LIMITS } from '#core/limits.js';
import { alreadyRecorded, checkPolicy, recordAcceptance } from '#core/trust/policy.js';
import { EMPTY_STATE, type UpdaterState } from '#core/state.js';
import {
  pinKeys,
  verifyAnswer,
  verifyManifest,
  type VerifiedManifest,
} from '#core/trust/verify.js';
import type { Release } from '#protocol';
import { answerOf, signFreshness, signRelease, statementFor, TestChain } from '#test/trust-kit.js';
import { FIRST_CONTACT } from '#test/answer-kit.js';
import { envelopeBytes, manifestOf, sha256Hex, T0, text } from '#test/fakes.js';

const BASE = 'http://127.0.0.1:1/';
const chain = new TestChain();
const pinned = pinKeys([chain.pinned.hex]);
const APP = text('app');
const OTHER = text('other');

function releaseOf(version: string, content = APP): Release {
  const sha256 = sha256Hex(content);
  return {
    registry_version: version,
    artifacts: [{ name: 'app.bin', size: content.length, sha256, url: `a/${sha256}` }],
  };
}

let sequence = 10;
function vm2(version: string, content = APP): VerifiedManifest {
  const release = signRelease(releaseOf(version, content), chain.current.release);
  const freshness = signFreshness(
    statementFor(release, 1, ++sequence, T0 - 60_000),
    chain.current.freshness,
  );
  return verifyAnswer(answerOf(chain.links, release, freshness), { pinned, ...FIRST_CONTACT });
}

function vm1(version: string, content = APP): VerifiedManifest {
  return verifyManifest(
    envelopeBytes(manifestOf(version, [{ name: 'app.bin', content }]), {
      secretKey: chain.pinned.secretKey,
      publicKey: chain.pinned.publicKey,
    }),
    pinned,
    1 << 20,
  );
}

function refusal(verified: VerifiedManifest, state: UpdaterState): string {
  try {
    checkPolicy(verified, state, T0, DEFAULT_LIMITS, BASE);
  } catch (error) {
    expect(error).toBeInstanceOf(UpdateError);
    return (error as UpdateError).code;
  }
  return 'accepted';
}

/** The state after installing `verified` (what update() commits). */
function installed(verified: VerifiedManifest, state = EMPTY_STATE): UpdaterState {
  const m = verified.manifest;
  return {
    ...recordAcceptance(state, verified),
    installed: {
      setId: verified.setId,
      version: m.registry_version,
      artifacts: m.artifacts.map(({ name, size, sha256 }) => ({ name, size, sha256 })),
    },
  };
}

describe('checkPolicy on a format 2 release', () => {
  it('records the key set, the freshness floor and the release digest in one state', () => {
    const verified = vm2('1.0.0');
    const state = recordAcceptance(EMPTY_STATE, verified);
    expect(state.trust).toEqual(verified.trust?.trust);
    expect(state.freshness).toEqual(verified.trust?.floor);
    expect(state.releaseDigests).toEqual({ '1.0.0': verified.setId });
    expect(state.acceptedDigests).toEqual({});
    expect(state.highestAcceptedVersion).toBe('1.0.0');
    expect(alreadyRecorded(state, verified)).toBe(true);
  });

  it('refuses a version below the highest accepted (ROLLBACK)', () => {
    const state = recordAcceptance(EMPTY_STATE, vm2('2.0.0'));
    expect(refusal(vm2('1.0.0'), state)).toBe('ROLLBACK');
  });

  it('refuses another release at an accepted registry_version (EQUIVOCATION)', () => {
    const state = recordAcceptance(EMPTY_STATE, vm2('1.0.0'));
    expect(refusal(vm2('1.0.0', OTHER), state)).toBe('EQUIVOCATION');
  });

  it('accepts the same release under a new freshness statement', () => {
    const state = recordAcceptance(EMPTY_STATE, vm2('1.0.0'));
    expect(refusal(vm2('1.0.0'), state)).toBe('accepted');
  });

  it('does not check expiry again: the statement was checked in verification', () => {
    const verified = vm2('1.0.0');
    expect(() =>
      checkPolicy(verified, EMPTY_STATE, T0 + 10 * 86_400_000, DEFAULT_LIMITS, BASE),
    ).not.toThrow();
  });
});

describe('migration from format 1 (docs/PROTOCOL.md §2.7.7)', () => {
  it('accepts the format 2 release of a version installed under format 1 with the same files', () => {
    const state = installed(vm1('1.0.0'));
    const verified = vm2('1.0.0');
    expect(verified.setId).not.toBe(state.installed?.setId);
    expect(refusal(verified, state)).toBe('accepted');
    expect(alreadyRecorded(state, verified)).toBe(false);
  });

  it('refuses a format 2 release of that version with other files (EQUIVOCATION)', () => {
    expect(refusal(vm2('1.0.0', OTHER), installed(vm1('1.0.0')))).toBe('EQUIVOCATION');
  });

  it('keeps versions accepted under format 1 for ROLLBACK', () => {
    expect(refusal(vm2('0.9.0'), installed(vm1('1.0.0')))).toBe('ROLLBACK');
  });
});
