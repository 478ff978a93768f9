/**
 * The packs of a release signed offline (docs/PROTOCOL.md §2.7.8, §2.8). `sign-release` signs
 * the table; the server never trusts it. A pack it already holds (kept from the release
 * before, or a re-signature) must have each member's bytes at the signed offset. A pack it
 * does not hold must be the plain concatenation of its members in signed order, from byte 0
 * to the pack's size, hashing to the signed digest; it is built from the members' stored
 * blobs. Everything is checked before any pack is stored, so a refusal stores no pack.
 */
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import type { Release } from '#protocol';
import { HttpError } from '../../http/http-error.js';
import type { BlobInfo, PutOptions } from '../../store/blob-store.js';

/** What the checks and the build need of the blob store. */
export interface PackBlobs {
  readonly sizeOf: (sha256: string) => Promise<number | undefined>;
  readonly pathOf: (sha256: string) => string;
  readonly putConcat: (paths: readonly string[], options?: PutOptions) => Promise<BlobInfo>;
}

interface Member {
  readonly name: string;
  readonly sha256: string;
  readonly size: number;
  readonly offset: number;
}

/** A pack the table names: its digest, size and members by offset. */
interface SignedPack {
  readonly sha256: string;
  readonly size: number;
  readonly members: Member[];
}

/** A pack this publish must build: its digest, and its members' digests in order. */
export interface PackToBuild {
  readonly sha256: string;
  readonly members: readonly string[];
}

const mismatch = (pack: string, why: string): never => {
  throw new HttpError(400, 'ARTIFACT_MISMATCH', `pack ${pack} of the signed table ${why}`);
};

/** The signed packs, each member once by offset (members are deduplicated by digest). */
function signedPacks(release: Release): SignedPack[] {
  const packs = new Map<string, SignedPack>();
  for (const a of release.artifacts) {
    const ref = a.pack;
    if (ref === undefined) continue;
    let pack = packs.get(ref.sha256);
    if (pack === undefined) {
      pack = { sha256: ref.sha256, size: ref.size, members: [] };
      packs.set(ref.sha256, pack);
    } else if (pack.size !== ref.size) {
      mismatch(ref.sha256, `is named with two sizes (${pack.size} and ${ref.size})`);
    }
    const same = pack.members.find((m) => m.offset === ref.offset);
    if (same === undefined) {
      pack.members.push({ name: a.name, sha256: a.sha256, size: a.size, offset: ref.offset });
    } else if (same.sha256 !== a.sha256) {
      mismatch(ref.sha256, `puts ${same.name} and ${a.name} at the same offset ${ref.offset}`);
    }
  }
  for (const pack of packs.values()) pack.members.sort((x, y) => x.offset - y.offset);
  return [...packs.values()];
}

/** A held pack: every member's bytes must be at its signed offset. */
async function checkHeld(pack: SignedPack, path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    for (const m of pack.members) {
      const bytes = Buffer.alloc(m.size);
      const { bytesRead } = await handle.read(bytes, 0, m.size, m.offset);
      const digest = createHash('sha256').update(bytes.subarray(0, bytesRead)).digest('hex');
      if (bytesRead !== m.size || digest !== m.sha256) {
        mismatch(pack.sha256, `does not hold ${m.name} at offset ${m.offset}`);
      }
    }
  } finally {
    await handle.close();
  }
}

/** A new pack: its members must tile it from byte 0 and their bytes hash to its digest. */
async function checkNew(pack: SignedPack, blobs: PackBlobs): Promise<PackToBuild> {
  let end = 0;
  for (const m of pack.members) {
    if (m.offset !== end) {
      mismatch(
        pack.sha256,
        `is not stored here and its members do not make it (${m.name} at offset ${m.offset}, ` +
          `the members before end at ${end})`,
      );
    }
    end += m.size;
  }
  if (end !== pack.size) {
    mismatch(pack.sha256, `is not stored here and its members make ${end} bytes, not ${pack.size}`);
  }
  const hash = createHash('sha256');
  for (const m of pack.members) hash.update(await readFile(blobs.pathOf(m.sha256)));
  const digest = hash.digest('hex');
  if (digest !== pack.sha256) {
    mismatch(pack.sha256, `is not what its members' bytes make (${digest})`);
  }
  return { sha256: pack.sha256, members: pack.members.map((m) => m.sha256) };
}

/**
 * Checks every pack of `release` once its artifacts are matched (their blobs are stored);
 * returns the packs to build. Refuses 400 `ARTIFACT_MISMATCH`, naming the pack.
 */
export async function checkBundlePacks(release: Release, blobs: PackBlobs): Promise<PackToBuild[]> {
  const build: PackToBuild[] = [];
  for (const pack of signedPacks(release)) {
    if ((await blobs.sizeOf(pack.sha256)) === pack.size) {
      await checkHeld(pack, blobs.pathOf(pack.sha256));
    } else {
      build.push(await checkNew(pack, blobs));
    }
  }
  return build;
}

/** Stores the packs `checkBundlePacks` found missing, from their members' blobs. */
export async function buildBundlePacks(
  packs: readonly PackToBuild[],
  blobs: PackBlobs,
  onStored: (sha256: string) => void,
): Promise<void> {
  for (const pack of packs) {
    const stored = await blobs.putConcat(
      pack.members.map((sha) => blobs.pathOf(sha)),
      { onStored },
    );
    // The bytes were checked a moment ago; a blob changed since is refused all the same.
    if (stored.sha256 !== pack.sha256) mismatch(pack.sha256, 'changed while it was built');
  }
}
