/**
 * The AnswerCache port over one file, `DIR/.updater/answer`: a line with the SHA-256 of the URL
 * the answer came from (the URL itself is not written: it may carry user-info), a line with
 * the ETag, a line with the SHA-256 of the bytes, then the bytes. A file of the older two-line
 * form loads as no answer (one full answer, then the new form). Written whole and renamed into place (a kill
 * leaves the old or the new file); not fsynced, and a file whose bytes do not match their
 * digest loads as no cache, so a power cut costs at most one full answer. The bytes are never
 * trusted either way: every answer, kept or fresh, is verified (docs/PROTOCOL.md §2.7.6).
 * Both files are opened without following a link and only when regular (docs/UPDATER.md §2):
 * a FIFO left at `answer` or `answer.tmp` would otherwise block the one thread for good, and a
 * link would be read or written through.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnswerCache, CachedAnswer } from '#core/trust/index.js';
import { openNoFollow, readNoFollow } from '../fs/index.js';

/** An ETag as RFC 9110 §8.8.3 spells it: printable, no line breaks, bounded. */
const ETAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;
const MAX_ETAG_CHARS = 256;

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export class AnswerFile implements AnswerCache {
  private readonly path: string;

  /** `metaDir`: DIR/.updater (state-dir.ts). */
  constructor(metaDir: string) {
    this.path = join(metaDir, 'answer');
  }

  async load(resource: string): Promise<CachedAnswer | undefined> {
    let file: Buffer | undefined;
    try {
      // STATE_UNSAFE for a link or a FIFO, like any damage here: no answer (one full answer).
      file = await readNoFollow(this.path);
    } catch {
      return undefined;
    }
    if (file === undefined) return undefined;
    const first = file.indexOf(0x0a);
    const second = first < 0 ? -1 : file.indexOf(0x0a, first + 1);
    const third = second < 0 ? -1 : file.indexOf(0x0a, second + 1);
    if (third < 0) return undefined;
    const from = file.subarray(0, first).toString('latin1');
    const etag = file.subarray(first + 1, second).toString('latin1');
    const digest = file.subarray(second + 1, third).toString('latin1');
    const bytes = file.subarray(third + 1);
    if (from !== sha256(Buffer.from(resource))) return undefined;
    if (!ETAG.test(etag) || sha256(bytes) !== digest) return undefined;
    return { etag, bytes };
  }

  async save(resource: string, answer: CachedAnswer): Promise<void> {
    // An ETag we could not send back verbatim is not kept.
    if (answer.etag.length > MAX_ETAG_CHARS || !ETAG.test(answer.etag)) return;
    const from = sha256(Buffer.from(resource));
    const head = Buffer.from(`${from}\n${answer.etag}\n${sha256(answer.bytes)}\n`, 'latin1');
    const temp = `${this.path}.tmp`;
    // O_TRUNC on a regular file only (openNoFollow refuses anything else as STATE_UNSAFE).
    const handle = await openNoFollow(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
      0o600,
    );
    try {
      await handle.writeFile(Buffer.concat([head, answer.bytes]));
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
  }
}
