/**
 * The body of the hash-and-append worker thread (hash-append.ts starts one per process, shared
 * by the partial files being pulled). It owns the SHA-256 of each partial file (by stream id)
 * and appends to it: messages are handled in arrival order and answered in the same order, so
 * each hash covers exactly the bytes appended to its file, in file order.
 *
 * Why the source is text: the worker is started from it (`new Worker(code, { eval: true })`),
 * the one form that survives every bundle (the CLI's single ESM file, Electron's main bundle)
 * and tsx alike, without shipping a second entry file.
 */
/** What the main thread asks of the worker about one stream. */
type WorkerOp =
  /** Forget the stream (its partial is closed). */
  | { readonly op: 'end' }
  /** Hash the first `length` bytes already in the file (a resume, docs/UPDATER.md §3). */
  | { readonly op: 'prefix'; readonly fd: number; readonly length: number }
  /** Hash then append `length` bytes of `buffer` (shared; not touched after the answer). */
  | {
      readonly op: 'append';
      readonly fd: number;
      readonly buffer: SharedArrayBuffer;
      readonly length: number;
    }
  /** Start a fresh hash (the partial was truncated). */
  | { readonly op: 'reset' }
  /** Answer the hex digest of everything hashed so far (and forget it). */
  | { readonly op: 'digest' };

/** What the main thread sends: an operation on stream `id` (one per partial file). */
export type WorkerRequest = WorkerOp & { readonly id: number };

/** What the worker answers, one per request, in order. */
export type WorkerReply =
  | { readonly ok: true; readonly digest?: string }
  | {
      readonly ok: false;
      readonly message: string;
      readonly errno: string | undefined;
      readonly syscall: string | undefined;
    };

/**
 * The worker's source, run as a CommonJS script (`new Worker(source, { eval: true })`). Plain
 * JavaScript in a string on purpose: a compiled function's `toString()` would carry whatever
 * helpers the compiler of the moment inserts (tsx adds `__name` calls), which do not exist in
 * the worker. It speaks exactly WorkerRequest and WorkerReply; the tests drive it through
 * hash-append.ts, in and out of the bundle.
 */
export const WORKER_SOURCE = String.raw`
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const port = require('node:worker_threads').parentPort;
const READ_BYTES = 1024 * 1024;
const hashes = new Map();

function hashOf(id) {
  let hash = hashes.get(id);
  if (hash === undefined) {
    hash = crypto.createHash('sha256');
    hashes.set(id, hash);
  }
  return hash;
}

function writeAll(fd, bytes) {
  let done = 0;
  while (done < bytes.length) {
    const n = fs.writeSync(fd, bytes, done, bytes.length - done);
    // A regular file takes everything unless the disk is full: report, never spin.
    if (n <= 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    done += n;
  }
}

function hashPrefix(id, fd, length) {
  const hash = hashOf(id);
  const chunk = Buffer.allocUnsafe(Math.min(READ_BYTES, Math.max(length, 1)));
  let at = 0;
  while (at < length) {
    const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, length - at), at);
    if (n <= 0) throw new Error('partial file shorter than its size');
    hash.update(chunk.subarray(0, n));
    at += n;
  }
}

port.on('message', (request) => {
  try {
    if (request.op === 'append') {
      const bytes = new Uint8Array(request.buffer, 0, request.length);
      hashOf(request.id).update(bytes);
      writeAll(request.fd, bytes);
      port.postMessage({ ok: true });
    } else if (request.op === 'prefix') {
      hashPrefix(request.id, request.fd, request.length);
      port.postMessage({ ok: true });
    } else if (request.op === 'digest') {
      const digest = hashOf(request.id).digest('hex');
      hashes.delete(request.id);
      port.postMessage({ ok: true, digest });
    } else {
      // reset and end: a reset stream starts a fresh hash at its next append.
      hashes.delete(request.id);
      port.postMessage({ ok: true });
    }
  } catch (error) {
    port.postMessage({
      ok: false,
      message: typeof error?.message === 'string' ? error.message : 'worker failed',
      errno: typeof error?.code === 'string' ? error.code : undefined,
      syscall: typeof error?.syscall === 'string' ? error.syscall : undefined,
    });
  }
});
`;
