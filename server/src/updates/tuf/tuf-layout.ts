/**
 * Where the TUF repository lives (docs/PROTOCOL.md §TUF repository, Paths): metadata files by
 * their consistent-snapshot names (TUF spec §5.7.3) in `<dataDir>/tuf/`, the same names under
 * `/api/updates/tuf/` and at the top of a `publish --static-out` tree; target files under
 * `targets/` as `<dir>/<sha256>.<basename>` (TUF spec §5.7.3), their bytes in the blob store.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const TUF_DIR = 'tuf';
export const TIMESTAMP_FILE = 'timestamp.json';

/** Lifetimes (docs/PROTOCOL.md §TUF repository, Expiry), in seconds. */
export const ROOT_LIFETIME_S = 365 * 24 * 3600;
export const TARGETS_LIFETIME_S = 90 * 24 * 3600;
export const SNAPSHOT_LIFETIME_S = 7 * 24 * 3600;

/**
 * 7 days: the freshness lifetime is the TUF timestamp's, and our client refuses a timestamp
 * that expires further ahead (maxTimestampLifetimeS, docs/PROTOCOL.md §TUF repository, Expiry
 * defaults), so a server above it would serve nothing its clients accept: refused at start.
 */
export const MAX_FRESHNESS_LIFETIME_S = 7 * 24 * 3600;

export type VersionedRole = 'root' | 'targets' | 'snapshot';

/** `N.root.json`, `N.targets.json`, `N.snapshot.json` or `timestamp.json`, nothing else. */
const METADATA_NAME = /^(?:([1-9][0-9]{0,15})\.(root|targets|snapshot)\.json|timestamp\.json)$/;

export function isMetadataName(name: string): boolean {
  return METADATA_NAME.test(name);
}

export const versionedName = (version: number, role: VersionedRole): string =>
  `${version}.${role}.json`;

/** The consistent-snapshot name of a target (TUF spec §5.7.3): the hash before the basename. */
export function targetFileName(path: string, sha256: string): string {
  const slash = path.lastIndexOf('/');
  return `${path.slice(0, slash + 1)}${sha256}.${path.slice(slash + 1)}`;
}

const TARGET_NAME = /^((?:[^/]+\/)*)([0-9a-f]{64})\.([^/]+)$/;

/** The target path and hash a consistent-snapshot name stands for, or undefined. */
export function parseTargetFileName(name: string): { path: string; sha256: string } | undefined {
  const m = TARGET_NAME.exec(name);
  if (m === null) return undefined;
  return { path: `${m[1] ?? ''}${m[3] ?? ''}`, sha256: m[2] ?? '' };
}

/** The highest N of `N.<role>.json` in `dir` (0 when there is none). */
export async function highestVersion(dir: string, role: VersionedRole): Promise<number> {
  return (await highestVersions(dir))[role];
}

/** The highest N of every versioned role in `dir`, from one directory read. */
export async function highestVersions(dir: string): Promise<Record<VersionedRole, number>> {
  const out: Record<VersionedRole, number> = { root: 0, targets: 0, snapshot: 0 };
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw error;
  }
  for (const entry of entries) {
    const m = METADATA_NAME.exec(entry);
    const role = m?.[2] as VersionedRole | undefined;
    if (role !== undefined) out[role] = Math.max(out[role], Number(m?.[1]));
  }
  return out;
}

/** A metadata file's bytes, or undefined when it is not there. */
export async function readMetadata(dir: string, name: string): Promise<Buffer | undefined> {
  try {
    return await readFile(join(dir, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
