/**
 * Installed set + VerifiedManifest -> what to fetch, reuse and remove, with byte totals.
 * Pure: this is also the dry-run API (`check`). Content is addressed by SHA-256, so an artifact
 * whose digest is already installed under any name is reused, and two entries with the same
 * digest are fetched once.
 */
import type { ManifestArtifact } from '../protocol/manifest.js';
import type { PlanSummary } from './events.js';
import type { InstalledSet } from './state.js';
import type { VerifiedManifest } from './verify.js';

export interface Plan {
  readonly summary: PlanSummary;
  /** Unique digests to bring into the blob store (one entry per digest). */
  readonly downloads: readonly ManifestArtifact[];
  /** True when the installed set already is this manifest. */
  readonly upToDate: boolean;
}

/** Plans the move from `installed` to the verified manifest. */
export function planUpdate(installed: InstalledSet | null, vm: VerifiedManifest): Plan {
  const have = new Set<string>();
  const installedNames = new Set<string>();
  for (const a of installed?.artifacts ?? []) {
    have.add(a.sha256);
    installedNames.add(a.name);
  }
  const fetch: { name: string; size: number }[] = [];
  const reuse: { name: string; size: number }[] = [];
  const downloads: ManifestArtifact[] = [];
  const queued = new Set<string>();
  const wanted = new Set<string>();
  let bytesToFetch = 0;
  let bytesToReuse = 0;
  for (const a of vm.manifest.artifacts) {
    wanted.add(a.name);
    if (have.has(a.sha256)) {
      reuse.push({ name: a.name, size: a.size });
      bytesToReuse += a.size;
      continue;
    }
    fetch.push({ name: a.name, size: a.size });
    if (!queued.has(a.sha256)) {
      queued.add(a.sha256);
      downloads.push(a);
      bytesToFetch += a.size;
    }
  }
  const remove = [...installedNames].filter((name) => !wanted.has(name));
  return {
    summary: {
      fromVersion: installed?.version ?? null,
      toVersion: vm.manifest.registry_version,
      fetch,
      reuse,
      remove,
      bytesToFetch,
      bytesToReuse,
    },
    downloads,
    upToDate: installed !== null && installed.setId === vm.payloadSha256,
  };
}
