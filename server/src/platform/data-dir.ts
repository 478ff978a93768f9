/**
 * The server's data directory, made if missing (mode 0700). A `--data-dir` (or config
 * `data_dir`) that names a file, or a path below one, is a wrong setting and is said as one,
 * `CONFIG_INVALID`, rather than as Node's "EEXIST: file already exists" (docs/SERVER.md, Run it).
 */
import { mkdir } from 'node:fs/promises';
import { ServerError } from '../server-error.js';

export async function makeDataDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (cause) {
    // mkdir -p answers EEXIST when `dir` is a file, ENOTDIR when a folder above it is one.
    const code = (cause as { code?: unknown } | null)?.code;
    if (code !== 'EEXIST' && code !== 'ENOTDIR') throw cause;
    throw new ServerError('CONFIG_INVALID', `the data directory ${dir} is not a directory`, {
      cause,
    });
  }
}
