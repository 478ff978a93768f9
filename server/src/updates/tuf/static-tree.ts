/**
 * `publish --static-out DIR` (docs/PROTOCOL.md §TUF repository, Static tree): the repository
 * as plain files that nginx, an object store or a CDN serves as they are — every metadata file
 * by its consistent-snapshot name at the top, each target of the newest targets metadata at
 * `targets/<dir>/<sha256>.<basename>` (TUF spec §5.7.3). Files are written atomically, so a
 * reader sees an old or a new file; versioned names never change, and `timestamp.json` is
 * written last, after everything it leads to.
 */
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SHA256_HEX, tuf } from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { HttpError } from '../../http/http-error.js';
import type { BlobStore } from '../../store/blob-store.js';
import { ARTIFACT_ROUTE_PREFIX } from '../publish/release-builder.js';
import {
  highestVersion,
  isMetadataName,
  readMetadata,
  targetFileName,
  TIMESTAMP_FILE,
  versionedName,
} from './tuf-layout.js';
import type { TufRepository } from './tuf-repository.js';

export interface StaticTreeResult {
  readonly metadata: number;
  readonly targets: number;
  /** Packs written (docs/PROTOCOL.md §2.8), at the artifact route's relative path. */
  readonly packs: number;
}

export async function writeStaticTree(
  repository: TufRepository,
  blobs: BlobStore,
  outDir: string,
): Promise<StaticTreeResult> {
  const timestamp = await repository.update();
  if (timestamp === undefined) {
    throw new HttpError(404, 'NO_RELEASE', 'no TUF repository to write: no root or no targets');
  }
  await mkdir(outDir, { recursive: true });
  const { targets, packs } = await copyTargets(repository.dir, blobs, outDir);
  const names = (await readdir(repository.dir)).filter(
    (n) => isMetadataName(n) && n !== TIMESTAMP_FILE,
  );
  for (const name of names) {
    await writeFileAtomic(join(outDir, name), (await readMetadata(repository.dir, name)) as Buffer);
  }
  await writeFileAtomic(join(outDir, TIMESTAMP_FILE), timestamp);
  return { metadata: names.length + 1, targets, packs };
}

/**
 * Copies each target of the newest targets metadata to its consistent name, and each pack
 * the targets' table names (`custom.packs`) to `api/updates/artifacts/<sha256>`, the relative URL the
 * server writes for it, so a client whose base URL is the tree finds it as on the server.
 */
async function copyTargets(
  dir: string,
  blobs: BlobStore,
  outDir: string,
): Promise<{ targets: number; packs: number }> {
  const version = await highestVersion(dir, 'targets');
  const bytes = (await readMetadata(dir, versionedName(version, 'targets'))) as Buffer;
  const { signed } = tuf.parseEnvelope(bytes, 'targets');
  for (const [path, file] of signed.targets) {
    const sha256 = file.hashes.get('sha256') as string;
    await copyBlob(blobs, sha256, join(outDir, 'targets', targetFileName(path, sha256)));
  }
  const packs = new Set<string>();
  const table = tuf.isJsonObject(signed.custom) ? signed.custom['packs'] : undefined;
  const rows: readonly tuf.JsonValue[] = Array.isArray(table) ? table : [];
  for (const row of rows) {
    const packSha = tuf.isJsonObject(row) ? row['sha256'] : undefined;
    if (typeof packSha === 'string' && SHA256_HEX.test(packSha)) packs.add(packSha);
  }
  for (const sha256 of packs) {
    await copyBlob(blobs, sha256, join(outDir, ARTIFACT_ROUTE_PREFIX, sha256));
  }
  return { targets: signed.targets.size, packs: packs.size };
}

async function copyBlob(blobs: BlobStore, sha256: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const temp = `${to}.tmp-${process.pid}`;
  try {
    await copyFile(blobs.pathOf(sha256), temp);
    await rename(temp, to);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
