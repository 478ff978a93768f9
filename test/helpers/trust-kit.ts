/**
 * Keys, key sets, chains, releases and freshness statements for tests (docs/PROTOCOL.md §2.7):
 * every key is generated at run time; nothing here is a fixture on disk.
 */
import {
  encodeFreshness,
  encodeKeySet,
  encodeManifestAnswer,
  encodeRelease,
  FRESHNESS_PAYLOAD_TYPE,
  generateKeyPair,
  keyIdOf,
  KEYSET_PAYLOAD_TYPE,
  releaseDigest,
  RELEASE_PAYLOAD_TYPE,
  seedSigner,
  signDsse,
  type DsseEnvelope,
  type FreshnessStatement,
  type KeySetPayload,
  type Release,
  type Signer,
} from '#protocol';

export interface TestKey extends Signer {
  readonly secretKey: Uint8Array;
  readonly hex: string;
  readonly keyid: string;
}

export function newKey(): TestKey {
  const { secretKey, publicKey } = generateKeyPair();
  const signer = seedSigner(secretKey);
  return {
    secretKey,
    publicKey,
    sign: signer.sign,
    hex: Buffer.from(publicKey).toString('hex'),
    keyid: keyIdOf(publicKey),
  };
}

export const newKeys = (n: number): TestKey[] => Array.from({ length: n }, newKey);

/** One key set with its secret keys. */
export interface TestKeySet {
  readonly version: number;
  readonly root: readonly TestKey[];
  readonly rootThreshold: number;
  readonly release: readonly TestKey[];
  readonly releaseThreshold: number;
  readonly freshness: readonly TestKey[];
  readonly freshnessThreshold: number;
}

export function payloadOf(ks: TestKeySet): KeySetPayload {
  return {
    version: ks.version,
    root: { threshold: ks.rootThreshold, keys: ks.root.map((k) => k.hex) },
    release: { threshold: ks.releaseThreshold, keys: ks.release.map((k) => k.hex) },
    freshness: { threshold: ks.freshnessThreshold, keys: ks.freshness.map((k) => k.hex) },
  };
}

/** A key set with fresh keys for every role (thresholds 1 unless given). */
export function newKeySet(
  version: number,
  shape: Partial<Omit<TestKeySet, 'version'>> = {},
): TestKeySet {
  return {
    version,
    root: shape.root ?? [newKey()],
    rootThreshold: shape.rootThreshold ?? 1,
    release: shape.release ?? [newKey()],
    releaseThreshold: shape.releaseThreshold ?? 1,
    freshness: shape.freshness ?? [newKey()],
    freshnessThreshold: shape.freshnessThreshold ?? 1,
  };
}

/** Signs a key set link with the given keys (normally the previous and the new root keys). */
export function signKeySet(ks: TestKeySet, signers: readonly Signer[]): DsseEnvelope {
  return signDsse(encodeKeySet(payloadOf(ks)), KEYSET_PAYLOAD_TYPE, signers);
}

/**
 * A chain whose key set 1 has `pinned` as its root; `rotate` appends the next key set signed by
 * the previous root keys and its own.
 */
export class TestChain {
  readonly links: DsseEnvelope[] = [];
  readonly sets: TestKeySet[] = [];

  constructor(
    readonly pinned: TestKey = newKey(),
    shape: Partial<Omit<TestKeySet, 'version'>> = {},
  ) {
    const first = newKeySet(1, { root: [pinned], ...shape });
    this.sets.push(first);
    this.links.push(signKeySet(first, first.root));
  }

  get current(): TestKeySet {
    return this.sets[this.sets.length - 1] as TestKeySet;
  }

  /** The next key set: the current one with `change` applied, signed by both roots. */
  rotate(change: Partial<Omit<TestKeySet, 'version'>>, signers?: readonly Signer[]): TestKeySet {
    const previous = this.current;
    const next: TestKeySet = { ...previous, ...change, version: previous.version + 1 };
    this.sets.push(next);
    this.links.push(signKeySet(next, signers ?? [...previous.root, ...next.root]));
    return next;
  }
}

export function signRelease(release: Release, signers: readonly Signer[]): DsseEnvelope {
  return signDsse(encodeRelease(release), RELEASE_PAYLOAD_TYPE, signers);
}

export function signFreshness(
  statement: FreshnessStatement,
  signers: readonly Signer[],
): DsseEnvelope {
  return signDsse(encodeFreshness(statement), FRESHNESS_PAYLOAD_TYPE, signers);
}

/** The digest a freshness statement names for a signed release envelope. */
export function digestOf(release: DsseEnvelope): string {
  return releaseDigest(Buffer.from(release.payload, 'base64'));
}

/** A freshness statement over `release` valid from `issuedAtMs` for `lifetimeMs`. */
export function statementFor(
  release: DsseEnvelope,
  keysVersion: number,
  sequence: number,
  issuedAtMs: number,
  lifetimeMs = 86_400_000,
  nonce?: string,
): FreshnessStatement {
  return {
    release_sha256: digestOf(release),
    keys_version: keysVersion,
    sequence,
    issued_at: new Date(issuedAtMs).toISOString(),
    expires_at: new Date(issuedAtMs + lifetimeMs).toISOString(),
    ...(nonce === undefined ? {} : { nonce }),
  };
}

/** A whole format 2 answer. */
export function answerOf(
  keys: readonly DsseEnvelope[],
  release: DsseEnvelope,
  freshness: DsseEnvelope,
): Uint8Array {
  return encodeManifestAnswer({ keys, release }, freshness);
}
