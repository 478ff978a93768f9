/**
 * Installed set + VerifiedManifest -> what to fetch, reuse and remove, with byte totals.
 * Pure: this is also the dry-run API (`check`). Content is addressed by SHA-256, so an artifact
 * whose digest is already installed under any name is reused, and two entries with the same
 * digest are fetched once.
 *
 * What a pull fetches is decided once, from the blob store (pull.ts `missingBlobs`). So that
 * `check` reports the bytes `update` will move, the caller passes `stored`: digests new to the
 * installed set that the store already holds (the newer set's blobs after a rollback, or a set
 * kept as previous); those are reused, not fetched (accept-step.ts `accept`). A repair, which
 * re-fetches a blob the installed set names but the store lost, has its own plan (repair.ts).
 */
import type { ArtifactPlan, PlanSummary } from '../events.js';
import type { InstalledSet } from '../state.js';
import type { VerifiedManifest } from '../trust/index.js';

export interface Plan {
  readonly summary: PlanSummary;
  /** True when the installed set already is this manifest. */
  readonly upToDate: boolean;
}

/** Plans the move from `installed` to the verified manifest. */
export function planUpdate(
  installed: InstalledSet | null,
  verified: VerifiedManifest,
  stored: ReadonlySet<string> = new Set(),
): Plan {
  if (installed !== null && holdsExactly(installed, verified))
    return planHeldSet(installed, verified);
  const have = new Set<string>();
  const installedNames = new Set<string>();
  for (const a of installed?.artifacts ?? []) {
    have.add(a.sha256);
    installedNames.add(a.name);
  }
  const fetch: { name: string; size: number }[] = [];
  const artifacts: ArtifactPlan[] = [];
  const reuse: { name: string; size: number }[] = [];
  const queued = new Set<string>();
  const wanted = new Set<string>();
  let bytesToFetch = 0;
  let bytesToReuse = 0;
  for (const a of verified.manifest.artifacts) {
    wanted.add(a.name);
    if (have.has(a.sha256) || stored.has(a.sha256)) {
      reuse.push({ name: a.name, size: a.size });
      artifacts.push(reused(a));
      bytesToReuse += a.size;
      continue;
    }
    fetch.push({ name: a.name, size: a.size });
    if (!queued.has(a.sha256)) {
      queued.add(a.sha256);
      bytesToFetch += a.size;
      artifacts.push({ ...reused(a), method: 'whole', fetchBytes: a.size, reusedBytes: 0 });
    } else {
      artifacts.push(reused(a));
      bytesToReuse += a.size;
    }
  }
  const remove = [...installedNames].filter((name) => !wanted.has(name));
  return {
    summary: {
      fromVersion: installed?.version ?? null,
      toVersion: verified.manifest.registry_version,
      fetch,
      reuse,
      remove,
      bytesToFetch,
      bytesToReuse,
      artifacts,
      ...notesOf(verified),
    },
    upToDate: installed !== null && installed.setId === verified.setId,
  };
}

/**
 * True when the installed set lists exactly the manifest's entries, in order (names and
 * digests): the no-op case, where the installed set came from this very manifest. Checked
 * entry by entry, not inferred from the setId: a repair plans over the intact part of a set
 * that keeps its setId (repair.ts).
 */
export function holdsExactly(installed: InstalledSet, verified: VerifiedManifest): boolean {
  const have = installed.artifacts;
  const list = verified.manifest.artifacts;
  if (have.length !== list.length) return false;
  for (let i = 0; i < list.length; i++) {
    const a = have[i] as InstalledSet['artifacts'][number];
    const b = list[i] as (typeof list)[number];
    if (a.name !== b.name || a.sha256 !== b.sha256) return false;
  }
  return true;
}

/**
 * The plan when the installed set holds exactly the manifest's entries (`holdsExactly`, which
 * the caller checked): everything is reused, nothing removed. The same plan the general path
 * makes, without its four sets of 10,000 names and digests (docs/UPDATER.md §3, No-op runs).
 */
export function planHeldSet(installed: InstalledSet, verified: VerifiedManifest): Plan {
  const list = verified.manifest.artifacts;
  const reuse = new Array<{ name: string; size: number }>(list.length);
  const artifacts = new Array<ArtifactPlan>(list.length);
  let bytesToReuse = 0;
  for (let i = 0; i < list.length; i++) {
    const a = list[i] as (typeof list)[number];
    reuse[i] = { name: a.name, size: a.size };
    artifacts[i] = reused(a);
    bytesToReuse += a.size;
  }
  return {
    summary: {
      fromVersion: installed.version,
      toVersion: verified.manifest.registry_version,
      fetch: [],
      reuse,
      remove: [],
      bytesToFetch: 0,
      bytesToReuse,
      artifacts,
      ...notesOf(verified),
    },
    upToDate: installed.setId === verified.setId,
  };
}

/** An artifact taken whole from what is held. */
export function reused(a: { readonly name: string; readonly size: number }): ArtifactPlan {
  return {
    name: a.name,
    size: a.size,
    method: 'reuse',
    fetchBytes: 0,
    reusedBytes: a.size,
    indexBytes: 0,
  };
}

/** The signed release notes, as an optional field of the summary. */
function notesOf(verified: VerifiedManifest): { notes?: string } {
  const { notes } = verified.manifest;
  return notes === undefined ? {} : { notes };
}
