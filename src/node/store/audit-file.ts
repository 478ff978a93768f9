/**
 * Appends to the hash-chained audit log file (src/core/install/audit-log.ts): the whole chain is
 * checked first, a broken one is STATE_CORRUPT (never extended), and each line is fsynced.
 * The log is opened once, without following a link (a planted one is STATE_UNSAFE, safe-fs.ts),
 * and read, trimmed and appended through that one handle.
 */
import { constants } from 'node:fs';
import { nextAuditEntry, verifyAuditLog, type AuditRecord } from '#core/install/index.js';
import { UpdateError } from '#core/errors.js';
import { openNoFollow } from '../fs/index.js';

/** Appends one entry for `record` to the log at `path`. */
export async function appendAuditFile(path: string, record: AuditRecord): Promise<void> {
  const { O_RDWR, O_CREAT, O_APPEND } = constants;
  const handle = await openNoFollow(path, O_RDWR | O_CREAT | O_APPEND, 0o600);
  try {
    let text = (await handle.readFile()).toString('utf8');
    // An unterminated last line is an append torn by a crash or a full disk. The entry is
    // written before the state that accepts its manifest, so that acceptance never took
    // effect: drop the torn tail (only it) instead of blocking every later version with
    // STATE_CORRUPT.
    const complete = text.endsWith('\n') ? text.length : text.lastIndexOf('\n') + 1;
    if (complete < text.length) {
      text = text.slice(0, complete);
      await handle.truncate(Buffer.byteLength(text));
    }
    const checked = verifyAuditLog(text);
    if (!checked.ok) {
      throw new UpdateError(
        'STATE_CORRUPT',
        `audit log chain breaks at line ${checked.brokenAt + 1}`,
      );
    }
    const entry = nextAuditEntry(checked.entries.at(-1), record);
    // O_APPEND: written at the end whatever the position.
    await handle.write(`${JSON.stringify(entry)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
