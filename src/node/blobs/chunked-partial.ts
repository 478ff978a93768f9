/**
 * A chunked partial (docs/UPDATER.md §9): `partial/<sha256>.chunked` is the artifact being
 * assembled at its final size, `partial/<sha256>.chunks` the append-only record of the chunks
 * written into it (held chunks unhashed: docs/UPDATER.md §9.1). Each chunk is written at its
 * offset, then one 44-byte record (offset u64, length u32, SHA-256) is appended; data and
 * record are fsynced, in that order, every RECORD_SYNC_BYTES and on close, so a power cut
 * loses at most that much.
 *
 * A record is never trusted alone: on open every recorded chunk is read back and re-hashed,
 * and only those that still match count as verified (a torn last record, or a record whose
 * bytes never reached the disk, is simply fetched again). A record written for another chunk
 * layout (header: magic, the plan's index digest) is dropped with its data.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChunkedPartial } from '#core/chunks/index.js';
import { entrySpan, type Section } from '#protocol/chunk-index.js';
import { UpdateError } from '#core/errors.js';
import { fsyncDir } from '#shared/atomic-file.js';
import { promoteSealed, sealBlob } from './blob-facts.js';
import { EarlyWriteback } from '../fs/index.js';

const MAGIC = Buffer.from('VUCR1\n', 'latin1');
const HEADER_BYTES = MAGIC.length + 32;
const RECORD_BYTES = 44;
/** Bytes written between two fsyncs of the data and the record. */
export const RECORD_SYNC_BYTES = 8 * 1024 * 1024;

export interface ChunkedPartialOptions {
  readonly partialDir: string;
  readonly blobDir: string;
  readonly sha256: string;
  readonly size: number;
  /** Hex digest naming the chunk layout (the index's SHA-256). */
  readonly planId: string;
  /** Called after each record append (crash tests stop the process there). */
  readonly onRecorded?: () => void;
  /** Called once the blob is promoted. */
  readonly onPromoted?: () => void;
  /** Bytes written between two syncs of data and record (tests); default RECORD_SYNC_BYTES. */
  readonly syncEveryBytes?: number;
}

async function readRecords(record: FileHandle, planId: string): Promise<Buffer | undefined> {
  const { size } = await record.stat();
  if (size < HEADER_BYTES) return undefined;
  const bytes = Buffer.alloc(size);
  await record.read(bytes, 0, size, 0);
  const header = Buffer.concat([MAGIC, Buffer.from(planId, 'hex')]);
  if (!bytes.subarray(0, HEADER_BYTES).equals(header)) return undefined;
  // A torn last record (a crash mid-append) is dropped.
  const whole = Math.floor((size - HEADER_BYTES) / RECORD_BYTES) * RECORD_BYTES;
  return bytes.subarray(HEADER_BYTES, HEADER_BYTES + whole);
}

export async function openChunkedPartial(options: ChunkedPartialOptions): Promise<ChunkedPartial> {
  const dataPath = join(options.partialDir, `${options.sha256}.chunked`);
  const recordPath = join(options.partialDir, `${options.sha256}.chunks`);
  const { O_RDWR, O_CREAT, O_APPEND, O_NOFOLLOW } = constants;
  // Never through a symbolic link planted in the state directory.
  const record = await open(recordPath, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW, 0o600);
  const data = await open(dataPath, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600);
  const verified = new Map<number, number>();
  const records = await readRecords(record, options.planId);
  if (records === undefined) {
    await record.truncate(0);
    await data.truncate(0);
    await record.write(
      Buffer.concat([MAGIC, Buffer.from(options.planId, 'hex')]),
      0,
      HEADER_BYTES,
      0,
    );
  } else {
    const keep: Buffer[] = [];
    for (let at = 0; at < records.length; at += RECORD_BYTES) {
      const entry = records.subarray(at, at + RECORD_BYTES);
      const offset = entry.readUInt32BE(0) * 2 ** 32 + entry.readUInt32BE(4);
      const length = entry.readUInt32BE(8);
      if (offset + length > options.size || length === 0) continue;
      const bytes = Buffer.alloc(length);
      const { bytesRead } = await data.read(bytes, 0, length, offset);
      const same = createHash('sha256').update(bytes).digest().equals(entry.subarray(12, 44));
      if (bytesRead === length && same) {
        verified.set(offset, length);
        keep.push(entry);
      }
    }
    // Rewrite the record with the chunks that held, so a bad entry is not re-read every time.
    await record.truncate(HEADER_BYTES);
    if (keep.length > 0)
      await record.write(Buffer.concat(keep), 0, keep.length * RECORD_BYTES, HEADER_BYTES);
  }
  await data.truncate(options.size);
  return new FileChunkedPartial(options, dataPath, recordPath, data, record, verified);
}

class FileChunkedPartial implements ChunkedPartial {
  /**
   * Writes back what is dirty while the copy goes on, so the final fsync has little left to
   * wait for (a resume re-hashes every record, so a record may reach the disk before its data
   * without harm). One at a time.
   */
  private readonly writeback: EarlyWriteback;
  private closed = false;
  /** Writes run one after another so a record never precedes its data. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: ChunkedPartialOptions,
    private readonly dataPath: string,
    private readonly recordPath: string,
    private readonly data: FileHandle,
    private readonly record: FileHandle,
    readonly verified: Map<number, number>,
  ) {
    const every = options.syncEveryBytes ?? RECORD_SYNC_BYTES;
    this.writeback = new EarlyWriteback(() => this.sync(), every);
  }

  write(offset: number, bytes: Uint8Array, chunks: Section): Promise<void> {
    const step = this.queue.then(async () => {
      await this.data.write(bytes, 0, bytes.length, offset);
      // Each record entry: the chunk's offset, then its level 0 entry (length, SHA-256).
      const entries = Buffer.alloc(RECORD_BYTES * chunks.count);
      let at = offset;
      for (let i = 0; i < chunks.count; i++) {
        const base = i * RECORD_BYTES;
        entries.writeUInt32BE(Math.floor(at / 2 ** 32), base);
        entries.writeUInt32BE(at >>> 0, base + 4);
        entries.set(chunks.bytes.subarray(i * 36, i * 36 + 36), base + 8);
        at += entrySpan(chunks, i);
      }
      // Appended (the record is opened O_APPEND), whatever the position argument.
      await this.record.write(entries);
      this.writeback.wrote(bytes.length);
      this.options.onRecorded?.();
    });
    this.queue = step.catch(() => undefined);
    return step;
  }

  private async sync(): Promise<void> {
    await this.data.datasync();
    await this.record.datasync();
  }

  /** Waits for writes and background syncs, then syncs what is left; rethrows a sync error. */
  private async settle(): Promise<void> {
    await this.queue;
    try {
      await this.writeback.settle();
    } catch (cause) {
      throw new UpdateError('IO', 'cannot sync a chunked download', { cause });
    }
    await this.sync();
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    await this.queue;
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await this.data.read(bytes, 0, length, offset);
    return bytesRead === length ? bytes : bytes.subarray(0, bytesRead);
  }

  async complete(sha256?: string): Promise<void> {
    await this.queue;
    const digest = sha256 ?? (await this.hashData());
    // Sealed through the handle (read-only, sentinel mtime), as a whole-file download is.
    await sealBlob(this.data);
    // Durable before it can be promoted: a blob's name must never outlive its bytes.
    try {
      await this.settle();
    } catch (error) {
      await this.close().catch(() => undefined);
      await this.discard();
      throw error;
    }
    if (digest !== this.options.sha256) {
      await this.close();
      await this.discard();
      throw new UpdateError(
        'HASH_MISMATCH',
        `SHA-256 ${digest} is not the signed ${this.options.sha256}`,
      );
    }
    // The same promotion as a whole-file download (partial-blob.ts): facts recorded.
    try {
      await promoteSealed(this.dataPath, this.options.blobDir, this.options.sha256, this.data);
    } finally {
      await this.close();
    }
    await fsyncDir(this.options.blobDir);
    await rm(this.recordPath, { force: true });
    this.options.onPromoted?.();
  }

  private async hashData(): Promise<string> {
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(1024 * 1024);
    for (let at = 0; at < this.options.size; at += buffer.length) {
      const { bytesRead } = await this.data.read(buffer, 0, buffer.length, at);
      hash.update(buffer.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let synced = false;
    try {
      await this.settle();
      synced = true;
    } finally {
      await this.data.close();
      await this.record.close();
      // A failed sync reports its error once: a later run would re-hash the records from the
      // page cache and trust bytes the disk never took, so the whole partial goes.
      if (!synced) await this.discard();
    }
  }

  private async discard(): Promise<void> {
    await rm(this.dataPath, { force: true });
    await rm(this.recordPath, { force: true });
  }
}
