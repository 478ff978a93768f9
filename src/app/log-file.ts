/**
 * A size-rotated log file: `main.log`, then `main.log.1` … `main.log.<keep>`. Bounded disk
 * use: at most (keep + 1) × maxBytes. Lines never carry the machine key (callers pass
 * messages, the core's messages are secret-free by contract).
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface LogFileOptions {
  readonly dir: string;
  readonly name?: string;
  readonly maxBytes?: number;
  readonly keep?: number;
  readonly now?: () => number;
}

export interface LogFile {
  write(level: 'info' | 'warn' | 'error', message: string): void;
  readonly path: string;
}

/** Opens (creating the directory) a rotating log file. */
export function openLogFile(options: LogFileOptions): LogFile {
  const path = join(options.dir, options.name ?? 'main.log');
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const keep = options.keep ?? 3;
  const now = options.now ?? (() => Date.now());
  mkdirSync(options.dir, { recursive: true });
  let size = Math.max(0, sizeOf(path));

  const rotate = (): void => {
    rmSync(`${path}.${keep}`, { force: true });
    for (let i = keep - 1; i >= 1; i -= 1) {
      if (sizeOf(`${path}.${i}`) >= 0) renameSync(`${path}.${i}`, `${path}.${i + 1}`);
    }
    if (keep >= 1 && sizeOf(path) >= 0) renameSync(path, `${path}.1`);
    else rmSync(path, { force: true });
    size = 0;
  };

  return {
    path,
    write(level, message) {
      // One line per entry: newlines in messages cannot forge entries.
      const line = `${new Date(now()).toISOString()} ${level} ${message.replace(/[\r\n]+/g, ' ')}\n`;
      const bytes = Buffer.byteLength(line);
      if (size > 0 && size + bytes > maxBytes) rotate();
      appendFileSync(path, line, { mode: 0o600 });
      size += bytes;
    },
  };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}
