/**
 * Targets metadata from a release (docs/PROTOCOL.md §TUF repository, Custom fields): each
 * artifact is a target by its name with `length` and `hashes.sha256` (TUF spec §4.5), its
 * product fields (the chunk index reference) in the target's `custom`; `registry_version`
 * is in the targets metadata's own `custom`.
 */
import { packTableOf, tuf, type ManifestArtifact } from '#protocol';
import { TARGETS_LIFETIME_S } from './tuf-layout.js';

/** What targets metadata vouches for: a release's version and artifacts. */
export interface TargetsContent {
  readonly registry_version: string;
  readonly artifacts: readonly ManifestArtifact[];
  /** The release notes, signed beside the version (docs/PROTOCOL.md §2.2 `notes`). */
  readonly notes?: string;
}

/**
 * The product fields of one artifact: everything but where today's manifest points; the chunk
 * index reference as the manifest carries it, and the pack (docs/PROTOCOL.md §2.8) by its
 * index into the table of packs (`custom.packs` of the targets) and the member's offset.
 */
function customOf(artifact: ManifestArtifact, packIndex: number): tuf.JsonObject | undefined {
  const { chunk_index, pack } = artifact;
  if (chunk_index === undefined && pack === undefined) return undefined;
  return {
    ...(chunk_index === undefined ? {} : { chunk_index: { ...chunk_index } }),
    ...(pack === undefined ? {} : { pack: packIndex, pack_offset: pack.offset }),
  };
}

export function targetsFor(
  content: TargetsContent,
  version: number,
  nowMs: number,
): tuf.JsonObject {
  const { packs, indexOf } = packTableOf(content.artifacts.map((a) => a.pack));
  return tuf.buildTargets(
    {
      version,
      expiresMs: nowMs + TARGETS_LIFETIME_S * 1000,
      custom: {
        registry_version: content.registry_version,
        ...(content.notes === undefined ? {} : { notes: content.notes }),
        ...(packs.length === 0 ? {} : { packs: packs.map((p) => ({ ...p })) }),
      },
    },
    content.artifacts.map((a, i) => {
      const custom = customOf(a, indexOf[i] as number);
      return {
        path: a.name,
        length: a.size,
        sha256: a.sha256,
        ...(custom === undefined ? {} : { custom }),
      };
    }),
  );
}

/** `registry_version` and `expires` of stored targets metadata (the repository wrote it). */
export function targetsSummary(bytes: Uint8Array): {
  registryVersion: string;
  expiresMs: number;
  keyids: readonly string[];
} {
  const envelope = tuf.parseEnvelope(bytes, 'targets');
  const custom = tuf.parseStrictJson(envelope.signedBytes) as tuf.JsonObject;
  const product = custom['custom'];
  const registryVersion =
    tuf.isJsonObject(product) && typeof product['registry_version'] === 'string'
      ? product['registry_version']
      : '';
  const keyids = envelope.signatures.map((s) => s.keyid);
  return { registryVersion, expiresMs: envelope.signed.expiresMs, keyids };
}
