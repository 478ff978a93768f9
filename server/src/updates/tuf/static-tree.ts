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
import { tuf } from '#protocol';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { HttpError } from '../../http/http-error.js';
import type { BlobStore } from '../../store/blob-store.js';
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
  const targets = await copyTargets(repository.dir, blobs, outDir);
  const names = (await readdir(repository.dir)).filter(
    (n) => isMetadataName(n) && n !== TIMESTAMP_FILE,
  );
  for (const name of names) {
    await writeFileAtomic(join(outDir, name), (await readMetadata(repository.dir, name)) as Buffer);
  }
  await writeFileAtomic(join(outDir, TIMESTAMP_FILE), timestamp);
  return { metadata: names.length + 1, targets };
}

/** Copies each target of the newest targets metadata to its consistent name. */
async function copyTargets(dir: string, blobs: BlobStore, outDir: string): Promise<number> {
  const version = await highestVersion(dir, 'targets');
  const bytes = (await readMetadata(dir, versionedName(version, 'targets'))) as Buffer;
  const { signed } = tuf.parseEnvelope(bytes, 'targets');
  for (const [path, file] of signed.targets) {
    const sha256 = file.hashes.get('sha256') as string;
    const to = join(outDir, 'targets', targetFileName(path, sha256));
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
  return signed.targets.size;
}
