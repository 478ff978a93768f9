/**
 * `--machine-key-file PATH` (docs/UPDATER.md §7): the machine key read from a file, so it shows
 * neither in `ps` (as `--machine-key KEY` does) nor in the shell's history. On POSIX a file
 * other users may read, write or run (mode & 0o007) is refused, as ssh refuses a private key
 * others can read: the key is a bearer secret. Group access is allowed, so a service account's
 * group may hold it (0640). Windows has no such mode bits; there the file is read as is.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { errnoDetails, UpdateError } from '#core/errors.js';

/** A machine key is a short token; a larger file is not one. */
export const MAX_MACHINE_KEY_FILE_BYTES = 4096;

function refuse(message: string, details: Record<string, string>): never {
  throw new UpdateError('CONFIG_INVALID', message, { details });
}

/** Reads the key: one line, surrounding whitespace (the final newline) trimmed. */
export function readMachineKeyFile(
  path: string,
  platform: NodeJS.Platform = process.platform,
): string {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO (or a device) opens at once instead of blocking the only thread until
    // a writer comes, which not even Ctrl-C interrupts; fstat below then refuses it as not a
    // file. On a regular file the flag changes nothing. Windows has no such flag, nor FIFOs.
    const nonBlocking = platform === 'win32' ? 0 : constants.O_NONBLOCK;
    fd = openSync(path, constants.O_RDONLY | nonBlocking);
  } catch (cause) {
    const details = errnoDetails(cause) ?? { path };
    throw new UpdateError(
      'CONFIG_INVALID',
      `--machine-key-file ${path} cannot be read (${String(details['errno'] ?? 'error')})`,
      { cause, details },
    );
  }
  try {
    // fstat on the open descriptor: the mode checked is the mode of the file read.
    const stats = fstatSync(fd);
    if (!stats.isFile()) refuse(`--machine-key-file ${path} is not a file`, { path });
    const others = stats.mode & 0o007;
    if (platform !== 'win32' && others !== 0) {
      const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
      refuse(
        `--machine-key-file ${path} is open to other users (mode ${mode}); ` +
          `run: chmod o-rwx ${path}`,
        { path, mode },
      );
    }
    if (stats.size > MAX_MACHINE_KEY_FILE_BYTES) {
      refuse(`--machine-key-file ${path} is larger than ${MAX_MACHINE_KEY_FILE_BYTES} bytes`, {
        path,
      });
    }
    const buffer = Buffer.alloc(MAX_MACHINE_KEY_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0 || length + read >= buffer.length) {
        length += read;
        break;
      }
      length += read;
    }
    if (length > MAX_MACHINE_KEY_FILE_BYTES) {
      refuse(`--machine-key-file ${path} is larger than ${MAX_MACHINE_KEY_FILE_BYTES} bytes`, {
        path,
      });
    }
    const key = buffer.subarray(0, length).toString('utf8').trim();
    if (key === '') refuse(`--machine-key-file ${path} is empty`, { path });
    if (/\s/.test(key)) refuse(`--machine-key-file ${path} holds more than one line`, { path });
    return key;
  } finally {
    closeSync(fd);
  }
}

/**
 * The machine key of a command: `--machine-key`, else `--machine-key-file`, else the
 * environment (UPDATER_MACHINE_KEY, read by the entry point); '' when none. Both flags at once
 * is a usage error.
 */
export function machineKeyOf(
  flag: string | undefined,
  file: string | undefined,
  env: string | undefined,
): string {
  if (flag !== undefined && file !== undefined) {
    throw new UpdateError('CONFIG_INVALID', 'give --machine-key or --machine-key-file, not both');
  }
  return file === undefined ? (flag ?? env ?? '') : readMachineKeyFile(file);
}
