/**
 * The real platform operations of the hand-over (hand-over.ts), over node:fs and
 * node:child_process. `quit` comes from the app (Electron's app.quit, through its shutdown).
 */
import { spawn } from 'node:child_process';
import { chmod, open, readdir, rename, rm, stat } from 'node:fs/promises';
import type { HandOverOps } from './hand-over.js';

async function syncDir(dir: string): Promise<void> {
  // Windows cannot open a folder for fsync; its renames are journaled by NTFS.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function spawnDetached(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], { detached: true, stdio: 'ignore' });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

function run(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited with ${String(code)}`)),
    );
  });
}

export function nodeHandOverOps(quit: () => void): HandOverOps {
  return {
    stat: (path) => stat(path),
    chmod: (path, mode) => chmod(path, mode),
    rename: (from, to) => rename(from, to),
    rm: (path) => rm(path, { recursive: true, force: true }),
    syncDir,
    readdir: (dir) => readdir(dir),
    // ditto keeps the bundle's symlinks, modes and extended attributes (its code signature).
    extractZip: (zip, intoDir) => run('/usr/bin/ditto', ['-x', '-k', zip, intoDir]),
    spawnDetached,
    quit,
  };
}
