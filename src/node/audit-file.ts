/**
 * Appends to the hash-chained audit log file (src/core/audit-log.ts): the whole chain is
 * checked first, a broken one is STATE_CORRUPT (never extended), and each line is fsynced.
 */
import { open, readFile, truncate } from 'node:fs/promises';
import { nextAuditEntry, verifyAuditLog, type AuditRecord } from '../core/audit-log.js';
import { UpdateError } from '../core/errors.js';

/** Appends one entry for `record` to the log at `path`. */
export async function appendAuditFile(path: string, record: AuditRecord): Promise<void> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // An unterminated last line is an append torn by a crash or a full disk. The entry is written
  // before the state that accepts its manifest, so that acceptance never took effect: drop the
  // torn tail (only it) instead of blocking every later version with STATE_CORRUPT.
  const complete = text.endsWith('\n') ? text.length : text.lastIndexOf('\n') + 1;
  if (complete < text.length) {
    text = text.slice(0, complete);
    await truncate(path, Buffer.byteLength(text));
  }
  const checked = verifyAuditLog(text);
  if (!checked.ok) {
    throw new UpdateError(
      'STATE_CORRUPT',
      `audit log chain breaks at line ${checked.brokenAt + 1}`,
    );
  }
  const entry = nextAuditEntry(checked.entries.at(-1), record);
  const handle = await open(path, 'a', 0o600);
  try {
    await handle.write(`${JSON.stringify(entry)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
