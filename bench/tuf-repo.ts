/**
 * A minimal TUF repository for the peer benchmark (bench/updater-peers.ts): one Ed25519 key for
 * all four top-level roles, no consistent snapshots, metadata written as static files that
 * nginx serves. tuf-js then refreshes and downloads targets exactly as a real client would
 * (root → timestamp → snapshot → targets, length and hash checks on every file).
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Key,
  Metadata,
  MetaFile,
  Root,
  Signature,
  Snapshot,
  TargetFile,
  Targets,
  Timestamp,
} from '@tufjs/models';

const SPEC_VERSION = '1.0.31';
const ROLES = ['root', 'timestamp', 'snapshot', 'targets'] as const;

export interface TufTarget {
  readonly path: string;
  readonly length: number;
  readonly sha256: string;
}

export interface TufSigner {
  readonly keyId: string;
  readonly key: Key;
  readonly privateKey: KeyObject;
}

/** A fresh Ed25519 signing key in TUF's key format (public key as hex). */
export function tufSigner(): TufSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'jwk' }).x ?? '';
  const publicHex = Buffer.from(raw, 'base64url').toString('hex');
  const keyId = createHash('sha256').update(publicHex).digest('hex');
  const key = new Key({
    keyID: keyId,
    keyType: 'ed25519',
    scheme: 'ed25519',
    keyVal: { public: publicHex },
  });
  return { keyId, key, privateKey };
}

function signWith(signer: TufSigner) {
  return (data: Buffer): Signature =>
    new Signature({
      keyID: signer.keyId,
      sig: sign(null, data, signer.privateKey).toString('hex'),
    });
}

function bytesOf(md: Metadata<Root | Timestamp | Snapshot | Targets>): Buffer {
  return Buffer.from(JSON.stringify(md.toJSON()));
}

function metaFileOf(bytes: Buffer, version: number): MetaFile {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return new MetaFile({ version, length: bytes.length, hashes: { sha256 } });
}

/**
 * Writes `1.root.json`, `root.json`, `timestamp.json`, `snapshot.json` and `targets.json` for
 * `targets` into `dir`. `version` numbers timestamp, snapshot and targets, so a second
 * release written with a higher version into another directory is a valid update for a
 * client that trusted the first.
 */
export async function writeTufRepo(
  dir: string,
  signer: TufSigner,
  targets: readonly TufTarget[],
  version: number,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const expires = '2099-01-01T00:00:00Z';
  const signed = { version, specVersion: SPEC_VERSION, expires };
  const root = new Metadata(
    new Root({
      version: 1,
      specVersion: SPEC_VERSION,
      expires,
      consistentSnapshot: false,
      keys: { [signer.keyId]: signer.key },
    }),
  );
  // Root's constructor creates the four top-level roles with threshold 1; add our key to each.
  for (const role of ROLES) root.signed.addKey(signer.key, role);
  const targetsMd = new Metadata(new Targets(signed));
  for (const t of targets) {
    targetsMd.signed.addTarget(
      new TargetFile({ path: t.path, length: t.length, hashes: { sha256: t.sha256 } }),
    );
  }
  const sig = signWith(signer);
  root.sign(sig);
  targetsMd.sign(sig);
  const targetsBytes = bytesOf(targetsMd);
  const snapshot = new Metadata(
    new Snapshot({ ...signed, meta: { 'targets.json': metaFileOf(targetsBytes, version) } }),
  );
  snapshot.sign(sig);
  const snapshotBytes = bytesOf(snapshot);
  const timestamp = new Metadata(
    new Timestamp({ ...signed, snapshotMeta: metaFileOf(snapshotBytes, version) }),
  );
  timestamp.sign(sig);
  const rootBytes = bytesOf(root);
  await writeFile(join(dir, '1.root.json'), rootBytes);
  await writeFile(join(dir, 'root.json'), rootBytes);
  await writeFile(join(dir, 'targets.json'), targetsBytes);
  await writeFile(join(dir, 'snapshot.json'), snapshotBytes);
  await writeFile(join(dir, 'timestamp.json'), bytesOf(timestamp));
}
