/**
 * The online roles (docs/PROTOCOL.md §TUF repository, Roles and keys): snapshot and timestamp,
 * signed by the freshness key on the injected clock. Snapshot is re-signed when targets moves
 * or half its lifetime is gone; timestamp when snapshot moves or half its lifetime is gone, as
 * the freshness statement is (freshness-signer.ts). Versions only grow (TUF spec §5.4.3,
 * §5.5.5): they continue from the files on disk after a restart.
 */
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { tuf } from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import {
  highestVersion,
  readMetadata,
  SNAPSHOT_LIFETIME_S,
  TIMESTAMP_FILE,
  versionedName,
} from './tuf-layout.js';

interface Signed {
  readonly version: number;
  readonly bytes: Uint8Array;
  readonly issuedMs: number;
  readonly expiresMs: number;
  /** Snapshot: the targets version it names. Timestamp: the snapshot version. */
  readonly names: number;
  /** The keyid that signed it: a rotated online key re-signs at once (TUF spec §5.3.11). */
  readonly keyid: string;
}

export class OnlineRoles {
  #snapshot: Signed | undefined;
  #timestamp: Signed | undefined;

  private constructor(
    private readonly dir: string,
    private readonly now: () => number,
    private readonly timestampLifetimeMs: number,
    snapshot: Signed | undefined,
    timestamp: Signed | undefined,
  ) {
    this.#snapshot = snapshot;
    this.#timestamp = timestamp;
  }

  static async open(dir: string, now: () => number, timestampLifetimeS: number) {
    const lifetimeMs = timestampLifetimeS * 1000;
    const snapshotVersion = await highestVersion(dir, 'snapshot');
    const snapshotBytes =
      snapshotVersion === 0
        ? undefined
        : await readMetadata(dir, versionedName(snapshotVersion, 'snapshot'));
    const timestampBytes = await readMetadata(dir, TIMESTAMP_FILE);
    const snapshot = snapshotBytes && loaded(snapshotBytes, 'snapshot', SNAPSHOT_LIFETIME_S * 1000);
    const timestamp = timestampBytes && loaded(timestampBytes, 'timestamp', lifetimeMs);
    return new OnlineRoles(dir, now, lifetimeMs, snapshot, timestamp);
  }

  /** Timestamp bytes naming a snapshot that names `targetsVersion`, fresh on the clock. */
  async current(targetsVersion: number, signer: tuf.TufSigner): Promise<Uint8Array> {
    const nowMs = this.now();
    const keyid = tuf.tufKeyId(signer.publicHex);
    const keep = (held: Signed | undefined, names: number): held is Signed =>
      held !== undefined && held.names === names && held.keyid === keyid && !stale(held, nowMs);
    const snapshot = keep(this.#snapshot, targetsVersion)
      ? this.#snapshot
      : await this.#signSnapshot(targetsVersion, signer, nowMs);
    const timestamp = keep(this.#timestamp, snapshot.version)
      ? this.#timestamp
      : await this.#signTimestamp(snapshot, signer, nowMs);
    return timestamp.bytes;
  }

  async #signSnapshot(targetsVersion: number, signer: tuf.TufSigner, nowMs: number) {
    // Another writer on this directory (a publish process) may have signed a higher one.
    const onDisk = await highestVersion(this.dir, 'snapshot');
    const version = Math.max(this.#snapshot?.version ?? 0, onDisk) + 1;
    const expiresMs = nowMs + SNAPSHOT_LIFETIME_S * 1000;
    const signed = tuf.buildSnapshot({ version, expiresMs }, targetsVersion);
    const bytes = tuf.signMetadata(signed, [signer]);
    await writeFileAtomic(join(this.dir, versionedName(version, 'snapshot')), bytes);
    const keyid = tuf.tufKeyId(signer.publicHex);
    this.#snapshot = { version, bytes, issuedMs: nowMs, expiresMs, names: targetsVersion, keyid };
    return this.#snapshot;
  }

  async #timestampOnDisk(): Promise<number> {
    const bytes = await readMetadata(this.dir, TIMESTAMP_FILE);
    if (bytes === undefined) return 0;
    try {
      return tuf.parseEnvelope(bytes, 'timestamp').signed.version;
    } catch {
      return 0;
    }
  }

  async #signTimestamp(snapshot: Signed, signer: tuf.TufSigner, nowMs: number) {
    const version = Math.max(this.#timestamp?.version ?? 0, await this.#timestampOnDisk()) + 1;
    const expiresMs = nowMs + this.timestampLifetimeMs;
    const ref = {
      version: snapshot.version,
      length: snapshot.bytes.length,
      sha256: createHash('sha256').update(snapshot.bytes).digest('hex'),
    };
    const bytes = tuf.signMetadata(tuf.buildTimestamp({ version, expiresMs }, ref), [signer]);
    await writeFileAtomic(join(this.dir, TIMESTAMP_FILE), bytes);
    const keyid = tuf.tufKeyId(signer.publicHex);
    this.#timestamp = {
      version,
      bytes,
      issuedMs: nowMs,
      expiresMs,
      names: snapshot.version,
      keyid,
    };
    return this.#timestamp;
  }
}

/**
 * The timestamp `bytes` signed again for one request with `"nonce"` added to `signed`
 * (docs/PROTOCOL.md §TUF repository, Nonce): same version, snapshot and expiry, so a client
 * that trusts the plain one sees an equal version (TUF spec §5.4.3 allows it), and TUF
 * clients keep a field they do not know. Never stored: it is this request's alone.
 */
export function timestampWithNonce(
  bytes: Uint8Array,
  nonce: string,
  signer: tuf.TufSigner,
): Uint8Array {
  const { signed } = JSON.parse(Buffer.from(bytes).toString('utf8')) as {
    signed: tuf.JsonObject;
  };
  return tuf.signMetadata({ ...signed, nonce }, [signer]);
}

/** Half the lifetime gone: re-sign (docs/PROTOCOL.md §2.7.3, the same rule as freshness). */
function stale(signed: Signed, nowMs: number): boolean {
  return nowMs >= signed.issuedMs + (signed.expiresMs - signed.issuedMs) / 2;
}

/** A stored file; its issue time is taken as `expires - lifetime` (not stored in TUF). */
function loaded(bytes: Uint8Array, type: 'snapshot' | 'timestamp', lifetimeMs: number): Signed {
  const keyid = (envelope: { signatures: readonly { keyid: string }[] }) =>
    envelope.signatures[0]?.keyid ?? '';
  if (type === 'snapshot') {
    const envelope = tuf.parseEnvelope(bytes, 'snapshot');
    const { version, expiresMs, meta } = envelope.signed;
    const names = meta.get('targets.json')?.version ?? 0;
    const issuedMs = expiresMs - lifetimeMs;
    return { version, bytes, issuedMs, expiresMs, names, keyid: keyid(envelope) };
  }
  const envelope = tuf.parseEnvelope(bytes, 'timestamp');
  const { version, expiresMs, snapshotMeta } = envelope.signed;
  const issuedMs = expiresMs - lifetimeMs;
  return {
    version,
    bytes,
    issuedMs,
    expiresMs,
    names: snapshotMeta.version,
    keyid: keyid(envelope),
  };
}
