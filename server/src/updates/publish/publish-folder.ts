/**
 * The `publish` CLI's input: every regular file under FOLDER becomes an artifact named by its
 * relative POSIX path. Symbolic links and special files are refused (a link could point
 * outside FOLDER); names are checked by the publisher with src/protocol's rules.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpError } from '../../http/http-error.js';
import type { PublishArtifact } from './publisher.js';

/** Lists FOLDER recursively as publish artifacts (streamed later, never read here). */
export async function listFolder(folder: string): Promise<PublishArtifact[]> {
  const root = await lstat(folder).catch(() => undefined);
  if (root === undefined || !root.isDirectory()) {
    throw new HttpError(400, 'FOLDER_NOT_FOUND', `${folder} is not a directory`);
  }
  const out: PublishArtifact[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path, name);
      else if (entry.isFile()) out.push({ name, path });
      else throw new HttpError(400, 'UNSUPPORTED_FILE', `${name} is not a regular file`);
    }
  };
  await walk(folder, '');
  return out;
}
