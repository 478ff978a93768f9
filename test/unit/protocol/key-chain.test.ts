import { describe, expect, it } from 'vitest';
import { envelopeFromJson, type ParsedEnvelope } from '#protocol/envelope.js';
import { MAX_LINK_SIGNATURES, walkKeyChain, type ChainStart } from '#protocol/key-chain.js';
import { encodeKeySet, parseKeySet, pinnedRole, type KeySet } from '#protocol/key-set.js';
import { ProtocolError } from '#protocol/protocol-error.js';
import { signDsse } from '#protocol/role-signatures.js';
import { TrustError } from '#protocol/trust-error.js';
import {
  newKey,
  newKeys,
  payloadOf,
  signKeySet,
  TestChain,
  type TestKeySet,
} from '#test/trust-kit.js';
import { codeOf as codeOfAny } from '#test/expect-code.js';
const codeOf = (run: () => unknown): string | undefined =>
  codeOfAny(run, TrustError, ProtocolError);

const parsedLinks = (chain: TestChain, from = 0, to?: number): ParsedEnvelope[] =>
  chain.links
    .slice(from, to)
    .map((link, i) => envelopeFromJson(link, `keys[${i}]`, MAX_LINK_SIGNATURES));
const keySetOf = (ks: TestKeySet): KeySet => parseKeySet(encodeKeySet(payloadOf(ks)));
const fromPinned = (chain: TestChain): ChainStart => ({
  pinned: pinnedRole([chain.pinned.publicKey]),
});
const trustedAt = (chain: TestChain, version: number): ChainStart => ({
  keySet: keySetOf(chain.sets[version - 1] as TestKeySet),
  retired: [],
});

/** v1 (pinned root) -> v2 new freshness key -> v3 new release keys 2 of 3 -> v4 new root. */
function threeRotations(): TestChain {
  const chain = new TestChain();
  chain.rotate({ freshness: [newKey()] });
  chain.rotate({ release: newKeys(3), releaseThreshold: 2 });
  chain.rotate({ root: newKeys(3), rootThreshold: 2 });
  return chain;
}

describe('walkKeyChain from the pinned node_pubkey', () => {
  it('trusts key set 1 signed by the pinned key', () => {
    const chain = new TestChain();
    const walk = walkKeyChain(fromPinned(chain), parsedLinks(chain));
    expect(walk.keySet?.version).toBe(1);
    expect(walk.accepted.map((k) => k.version)).toEqual([1]);
    expect(walk.retired).toEqual([]);
  });

  it('follows a chain of three rotations (freshness, release 2 of 3, root 2 of 3)', () => {
    const chain = threeRotations();
    const walk = walkKeyChain(fromPinned(chain), parsedLinks(chain));
    expect(walk.keySet?.version).toBe(4);
    expect(walk.keySet?.root.threshold).toBe(2);
    expect(walk.accepted.map((k) => k.version)).toEqual([1, 2, 3, 4]);
    // The pinned key, the first freshness key and the first release key are retired.
    expect(walk.retired).toContain(chain.pinned.keyid);
    expect(walk.retired).toContain(chain.sets[0]?.freshness[0]?.keyid);
    expect(walk.retired).toContain(chain.sets[1]?.release[0]?.keyid);
  });

  it('starts at a later key set when the installer pins a rotated root', () => {
    const chain = threeRotations();
    const newRoot = chain.current.root;
    const start: ChainStart = { pinned: pinnedRole(newRoot.map((k) => k.publicKey)) };
    const walk = walkKeyChain(start, parsedLinks(chain));
    expect(walk.keySet?.version).toBe(4);
    expect(walk.accepted.map((k) => k.version)).toEqual([4]);
  });

  it('refuses a chain that no pinned key signed as UNKNOWN_KEY', () => {
    const chain = new TestChain();
    const other = new TestChain();
    expect(codeOf(() => walkKeyChain(fromPinned(other), parsedLinks(chain)))).toBe('UNKNOWN_KEY');
  });

  it('refuses a first key set whose own root threshold is not met as THRESHOLD_NOT_MET', () => {
    const pinned = newKey();
    const roots = newKeys(2);
    const chain = new TestChain(pinned, { root: [pinned, ...roots], rootThreshold: 2 });
    // TestChain signs key set 1 with all its root keys; re-sign it with the pinned key alone.
    chain.links[0] = signKeySet(chain.current, [pinned]);
    expect(codeOf(() => walkKeyChain(fromPinned(chain), parsedLinks(chain)))).toBe(
      'THRESHOLD_NOT_MET',
    );
  });

  it('refuses an empty chain as KEY_CHAIN_GAP', () => {
    const chain = new TestChain();
    expect(codeOf(() => walkKeyChain(fromPinned(chain), []))).toBe('KEY_CHAIN_GAP');
  });
});

describe('walkKeyChain from a trusted key set', () => {
  it('accepts only the key sets after the trusted one', () => {
    const chain = threeRotations();
    const walk = walkKeyChain(trustedAt(chain, 2), parsedLinks(chain));
    expect(walk.accepted.map((k) => k.version)).toEqual([3, 4]);
    expect(walk.freshnessKeysChanged).toBe(false);
  });

  it('reports a freshness key rotation, so the sequence floor starts over', () => {
    const chain = threeRotations();
    expect(walkKeyChain(trustedAt(chain, 1), parsedLinks(chain)).freshnessKeysChanged).toBe(true);
  });

  it('changes nothing when the answer holds no newer key set', () => {
    const chain = threeRotations();
    const walk = walkKeyChain(trustedAt(chain, 4), parsedLinks(chain, 0, 2));
    expect(walk.keySet?.version).toBe(4);
    expect(walk.accepted).toEqual([]);
  });

  it('accepts a part of the chain that starts right after the trusted key set', () => {
    const chain = threeRotations();
    const walk = walkKeyChain(trustedAt(chain, 2), parsedLinks(chain, 2));
    expect(walk.keySet?.version).toBe(4);
  });

  it('refuses a part of the chain that starts past the next version as KEY_CHAIN_GAP', () => {
    const chain = threeRotations();
    expect(codeOf(() => walkKeyChain(trustedAt(chain, 1), parsedLinks(chain, 2)))).toBe(
      'KEY_CHAIN_GAP',
    );
  });

  it('refuses a chain with a gap (2 missing between 1 and 3) as KEY_CHAIN_GAP', () => {
    const chain = threeRotations();
    const links = parsedLinks(chain);
    expect(
      codeOf(() =>
        walkKeyChain(fromPinned(chain), [links[0], links[2], links[3]] as ParsedEnvelope[]),
      ),
    ).toBe('KEY_CHAIN_GAP');
  });

  it('refuses a rotation signed only by the new root keys as THRESHOLD_NOT_MET', () => {
    const chain = new TestChain();
    const next = chain.rotate({ root: [newKey()] }, []);
    chain.links[1] = signKeySet(next, next.root);
    expect(codeOf(() => walkKeyChain(trustedAt(chain, 1), parsedLinks(chain)))).toBe(
      'THRESHOLD_NOT_MET',
    );
  });

  it('refuses a rotation signed only by the previous root keys as THRESHOLD_NOT_MET', () => {
    const chain = new TestChain();
    const previous = chain.current;
    chain.rotate({ root: [newKey()] }, previous.root);
    expect(codeOf(() => walkKeyChain(trustedAt(chain, 1), parsedLinks(chain)))).toBe(
      'THRESHOLD_NOT_MET',
    );
  });

  it('refuses a root rotation signed by 1 of 2 needed previous root keys as THRESHOLD_NOT_MET', () => {
    const pinned = newKey();
    const chain = new TestChain(pinned);
    const two = chain.rotate({ root: newKeys(3), rootThreshold: 2 });
    const three = chain.rotate({ root: [newKey()], rootThreshold: 1 }, []);
    chain.links[2] = signKeySet(
      three,
      [two.root[0], ...three.root].filter((k) => k !== undefined),
    );
    expect(codeOf(() => walkKeyChain(trustedAt(chain, 2), parsedLinks(chain)))).toBe(
      'THRESHOLD_NOT_MET',
    );
  });

  it('refuses a rotation signed by a retired root key as KEY_RETIRED', () => {
    const chain = new TestChain();
    const old = chain.current.root;
    chain.rotate({ root: [newKey()] });
    const three = chain.rotate({ release: [newKey()] }, []);
    chain.links[2] = signKeySet(three, old);
    const trusted = walkKeyChain(fromPinned(chain), parsedLinks(chain, 0, 2));
    const start: ChainStart = { keySet: trusted.keySet as KeySet, retired: trusted.retired };
    expect(codeOf(() => walkKeyChain(start, parsedLinks(chain)))).toBe('KEY_RETIRED');
  });

  it('refuses a link whose signed version is not the one its place claims (KEY_CHAIN_GAP)', () => {
    const chain = new TestChain();
    const two = chain.rotate({ freshness: [newKey()] });
    // A valid key set 3 in place of 2: the root is unchanged, so only the version is wrong.
    const three = { ...two, version: 3 };
    chain.links[1] = signKeySet(three, three.root);
    expect(codeOf(() => walkKeyChain(trustedAt(chain, 1), parsedLinks(chain)))).toBe(
      'KEY_CHAIN_GAP',
    );
  });

  it('refuses a malformed key set payload as MANIFEST_MALFORMED', () => {
    const chain = new TestChain();
    const bad = signDsse(
      new TextEncoder().encode('{"version":2}'),
      'application/vnd.updates.keyset+json',
      chain.current.root,
    );
    const links = [...parsedLinks(chain), envelopeFromJson(bad, 'keys[1]')];
    expect(codeOf(() => walkKeyChain(trustedAt(chain, 1), links))).toBe('MANIFEST_MALFORMED');
  });
});
