/**
 * Reads a file the operator named on the command line or in a config (--config, --node-key,
 * --clients-file, a bundle), refusing anything but a regular file. A plain readFile of a FIFO
 * waits in libuv's pool for a writer that never comes: the server hung at start, and neither
 * SIGTERM nor its own exit could end it, since exit waits for that thread (docs/SERVER.md,
 * Run it). Opened non-blocking, a FIFO or a device opens at once and is refused here.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** What readRegularFile throws for a directory, a FIFO or a device: `code` ENOTREG. */
export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError';
  readonly code = 'ENOTREG';
  constructor(readonly path: string) {
    super(`${path} is not a regular file`);
  }
}

/** What readRegularFile throws for a file over its `maxBytes`: `code` EFBIG. */
export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError';
  readonly code = 'EFBIG';
  constructor(
    readonly path: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`${path} is ${size} bytes, over the ${maxBytes} it may have`);
  }
}

/**
 * The file's text (UTF-8); a missing file fails with Node's own ENOENT error. With `maxBytes`
 * a larger file is refused before it is read (a config of hundreds of MB cost a GB of memory).
 */
export async function readRegularFile(path: string, maxBytes?: number): Promise<string> {
  // Windows has neither the flag nor FIFOs that block an open.
  const nonBlocking = process.platform === 'win32' ? 0 : constants.O_NONBLOCK;
  const handle = await open(path, constants.O_RDONLY | nonBlocking);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotRegularFileError(path);
    if (maxBytes !== undefined && info.size > maxBytes) {
      throw new FileTooLargeError(path, info.size, maxBytes);
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
