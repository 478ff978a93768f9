/**
 * The trusted metadata of one client run, and the only place metadata becomes trusted: each
 * update checks the new bytes against what is already trusted, in the order of TUF spec §5.3
 * (root) through §5.6 (targets). Pure: the caller fetches, stores and decides what to retry.
 * Expiry is judged against one reference time read when the run starts (TUF spec §5.1).
 */
import {
  TufError,
  parseEnvelope,
  requireLengthAndHashes,
  requireThreshold,
  type Envelope,
  type Root,
  type Snapshot,
  type Targets,
  type Timestamp,
  type TopLevelRole,
} from '#protocol/tuf/index.js';
import type { TufClientConfig } from './config.js';
import { requireSignedByDelegations } from './delegation-match.js';
import { requireNotExpired, requireTimestampLifetime } from './freshness.js';
import {
  decodeRetiredKeys,
  encodeRetiredKeys,
  retiredAfter,
  type RetiredKeys,
} from './retired-keys.js';

export type TimestampUpdate = 'updated' | 'unchanged';

export class TrustedMetadataSet {
  #root: Envelope<Root>;
  #timestamp: Envelope<Timestamp> | undefined;
  #snapshot: Envelope<Snapshot> | undefined;
  readonly #targets = new Map<string, Envelope<Targets>>();
  /**
   * Per top-level role, the keys a trusted root listed and a newer one dropped, in this run
   * or (kept beside root.json) an earlier one: a valid signature by one names the refusal
   * KEY_RETIRED (retired-keys.ts). Naming only; such a signature never counts.
   */
  #retired: RetiredKeys;

  /**
   * TUF spec §5.2: the trusted root, which must be signed by a threshold of its own keys.
   * `retiredBytes`: the retired keys list kept beside it, if any (advisory).
   */
  constructor(
    rootBytes: Uint8Array,
    readonly nowMs: number,
    private readonly config: TufClientConfig,
    retiredBytes?: Uint8Array,
  ) {
    const root = parseEnvelope(rootBytes, 'root');
    requireThreshold(root, root.signed.keys, root.signed.roles.root, 'root');
    this.#root = root;
    this.#retired = decodeRetiredKeys(retiredBytes, root.signed);
  }

  /** The retired keys as the list kept beside root.json (retired-keys.ts). */
  retiredKeysBytes(): Uint8Array {
    return encodeRetiredKeys(this.#retired);
  }

  get root(): Envelope<Root> {
    return this.#root;
  }
  get timestamp(): Envelope<Timestamp> | undefined {
    return this.#timestamp;
  }
  get snapshot(): Envelope<Snapshot> | undefined {
    return this.#snapshot;
  }
  targets(role: string): Envelope<Targets> | undefined {
    return this.#targets.get(role);
  }

  /** TUF spec §5.3.4, §5.3.5: root N+1, signed by a threshold of N and of itself. */
  updateRoot(bytes: Uint8Array): Envelope<Root> {
    if (this.#timestamp !== undefined) throw wrongOrder('root after timestamp');
    const trusted = this.#root.signed;
    const next = parseEnvelope(bytes, 'root');
    requireThreshold(next, trusted.keys, trusted.roles.root, 'root', this.#retired.get('root'));
    if (next.signed.version !== trusted.version + 1) {
      throw new TufError(
        'BAD_VERSION',
        `expected root v${trusted.version + 1}, got v${next.signed.version}`,
        { expected: trusted.version + 1, got: next.signed.version },
      );
    }
    const retired = retiredAfter(this.#retired, trusted, next.signed);
    requireThreshold(next, next.signed.keys, next.signed.roles.root, 'root', retired.get('root'));
    this.#retired = retired;
    this.#root = next;
    return next;
  }

  #requireRole(envelope: Envelope, role: TopLevelRole, name: string = role): void {
    const root = this.#root.signed;
    requireThreshold(envelope, root.keys, root.roles[role], name, this.#retired.get(role));
  }

  /**
   * TUF spec §5.4: timestamp signed by root's timestamp keys; no version or snapshot version
   * rollback. An equal version keeps the trusted one ('unchanged'). The new timestamp becomes
   * the intermediate trusted one before its expiry is checked, so that a later, unexpired one
   * is still compared with it. With `nonce`, the signed bytes must carry exactly that nonce
   * (NONCE_MISMATCH), checked after the signatures and before the version.
   */
  updateTimestamp(bytes: Uint8Array, nonce?: string): TimestampUpdate {
    if (this.#snapshot !== undefined) throw wrongOrder('timestamp after snapshot');
    // TUF spec §5.3.10: the final root must not be expired.
    requireNotExpired(this.#root.signed, 'root', this.nowMs);
    const next = parseEnvelope(bytes, 'timestamp');
    this.#requireRole(next, 'timestamp');
    if (nonce !== undefined && next.signed.nonce !== nonce) {
      throw new TufError('NONCE_MISMATCH', 'timestamp does not carry the nonce sent', {
        version: next.signed.version,
      });
    }
    const old = this.#timestamp?.signed;
    if (old !== undefined) {
      if (next.signed.version < old.version) {
        throw rollback('timestamp', old.version, next.signed.version);
      }
      if (next.signed.version === old.version) return 'unchanged';
      if (next.signed.snapshotMeta.version < old.snapshotMeta.version) {
        throw rollback(
          'snapshot (in timestamp)',
          old.snapshotMeta.version,
          next.signed.snapshotMeta.version,
        );
      }
    }
    this.#timestamp = next;
    this.#checkFinalTimestamp();
    return 'updated';
  }

  #checkFinalTimestamp(): Timestamp {
    const timestamp = this.#timestamp?.signed;
    if (timestamp === undefined) throw wrongOrder('snapshot before timestamp');
    requireNotExpired(timestamp, 'timestamp', this.nowMs);
    requireTimestampLifetime(timestamp, this.nowMs, this.config.maxTimestampLifetimeS);
    return timestamp;
  }

  /**
   * TUF spec §5.5: snapshot matching timestamp's length and hashes (skipped for `fromCache`
   * bytes, which were checked when stored), signed by root's snapshot keys, listing every
   * targets role the trusted snapshot listed at no lower version.
   */
  updateSnapshot(bytes: Uint8Array, fromCache: boolean): void {
    if (this.#targets.has('targets')) throw wrongOrder('snapshot after targets');
    const meta = this.#checkFinalTimestamp().snapshotMeta;
    if (!fromCache) requireLengthAndHashes(bytes, meta.length, meta.hashes, 'snapshot');
    const next = parseEnvelope(bytes, 'snapshot');
    this.#requireRole(next, 'snapshot');
    const old = this.#snapshot?.signed;
    if (old !== undefined) {
      for (const [name, oldMeta] of old.meta) {
        const newMeta = next.signed.meta.get(name);
        if (newMeta === undefined) {
          throw new TufError('ROLLBACK', `snapshot no longer lists ${name}`, { role: name });
        }
        if (newMeta.version < oldMeta.version)
          throw rollback(name, oldMeta.version, newMeta.version);
      }
    }
    this.#snapshot = next;
    this.#checkFinalSnapshot();
  }

  /** TUF spec §5.5.4, §5.5.6: the snapshot timestamp names, and unexpired. */
  #checkFinalSnapshot(): Snapshot {
    const snapshot = this.#snapshot?.signed;
    if (snapshot === undefined) throw wrongOrder('targets before snapshot');
    requireNotExpired(snapshot, 'snapshot', this.nowMs);
    const expected = this.#checkFinalTimestamp().snapshotMeta.version;
    if (snapshot.version !== expected) {
      throw new TufError(
        'BAD_VERSION',
        `expected snapshot v${expected}, got v${snapshot.version}`,
        {
          expected,
          got: snapshot.version,
        },
      );
    }
    return snapshot;
  }

  /**
   * TUF spec §5.6: a targets role (top-level or delegated) as snapshot lists it (length,
   * hashes, version), signed by the keys its delegator gives it, unexpired.
   */
  updateDelegatedTargets(bytes: Uint8Array, role: string, delegator: string): Envelope<Targets> {
    const snapshot = this.#checkFinalSnapshot();
    const meta = snapshot.meta.get(`${role}.json`);
    if (meta === undefined) {
      throw new TufError('ROLE_NOT_IN_SNAPSHOT', `snapshot does not list ${role}`, { role });
    }
    requireLengthAndHashes(bytes, meta.length, meta.hashes, role);
    const next = parseEnvelope(bytes, 'targets');
    this.requireSignedByDelegator(next, role, delegator);
    if (next.signed.version !== meta.version) {
      throw new TufError(
        'BAD_VERSION',
        `expected ${role} v${meta.version}, got v${next.signed.version}`,
        {
          role,
          expected: meta.version,
          got: next.signed.version,
        },
      );
    }
    requireNotExpired(next.signed, role, this.nowMs);
    this.#targets.set(role, next);
    return next;
  }

  /**
   * Checks `envelope` against the keys `delegator` gives `role` right now. Called again for a
   * role already trusted when a later search reaches it through another delegator: trust in a
   * role is per delegation path, never inherited from an earlier one.
   */
  requireSignedByDelegator(envelope: Envelope<Targets>, role: string, delegator: string): void {
    if (delegator === 'root') {
      this.#requireRole(envelope, 'targets', role);
      return;
    }
    const delegations = this.#targets.get(delegator)?.signed.delegations;
    if (delegations === undefined) throw wrongOrder(`${role} before its delegator ${delegator}`);
    requireSignedByDelegations(envelope, role, delegator, delegations);
  }
}

function wrongOrder(what: string): TufError {
  return new TufError('WRONG_ORDER', `cannot load ${what} (TUF spec §5 order)`);
}

function rollback(role: string, trusted: number, got: number): TufError {
  return new TufError('ROLLBACK', `${role} v${got} is older than trusted v${trusted}`, {
    role,
    trusted,
    got,
  });
}
