/**
 * An artifact list's packs between the signed form and the parsed one (docs/PROTOCOL.md §2.8):
 * signed, each pack is a row of the payload's table and an entry names it by index and
 * offset; parsed, an entry carries its whole `PackRef`.
 */
import type { ManifestArtifact } from './manifest-artifact.js';
import { packTableOf, type PackInfo } from './pack-ref.js';

/** An entry as signed: its pack an index into the table. */
export type WireEntry = Omit<ManifestArtifact, 'pack'> & {
  readonly pack?: number;
  readonly pack_offset?: number;
};

/**
 * Entries that already passed the parser (same bytes, same verdict), each pack looked up in
 * `packs`. A literal of the parser's shape, never a spread: a spread copy gave each of 10,000
 * entries a hidden class of its own (docs/UPDATER.md §11.1).
 */
export function resolvePacks(
  list: readonly WireEntry[],
  packs: readonly PackInfo[],
): ManifestArtifact[] {
  return list.map((e): ManifestArtifact => {
    const { name, size, sha256, url, chunk_index } = e;
    if (e.pack === undefined) return e as Omit<WireEntry, 'pack'>;
    const info = packs[e.pack] as PackInfo;
    const pack = {
      sha256: info.sha256,
      size: info.size,
      url: info.url,
      offset: e.pack_offset ?? 0,
    };
    return chunk_index === undefined
      ? { name, size, sha256, url, pack }
      : { name, size, sha256, url, chunk_index, pack };
  });
}

/**
 * The signed form of a list: each pack once in the table, each entry naming it by index and
 * offset. `packs` is left out when no entry names one, so a list without packs signs as before.
 */
export function wireArtifacts(artifacts: readonly ManifestArtifact[]): {
  artifacts: readonly (ManifestArtifact | WireEntry)[];
  packs?: readonly PackInfo[];
} {
  const { packs, indexOf } = packTableOf(artifacts.map((a) => a.pack));
  if (packs.length === 0) return { artifacts };
  const entries = artifacts.map((a, i): ManifestArtifact | WireEntry => {
    const { pack, ...rest } = a;
    if (pack === undefined) return a;
    return { ...rest, pack: indexOf[i] as number, pack_offset: pack.offset };
  });
  return { artifacts: entries, packs };
}
