/**
 * Artifact responses of the hostile server: honest static serving with ETag, Range and If-Range
 * (RFC 9110 §14, §13.1.5), or one of the transfer attacks. Every write is counted.
 */
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Blob {
  readonly sha256: string;
  readonly size: number;
  readonly bytes?: Uint8Array;
  readonly path?: string;
}

export type ArtifactAttack =
  /** Sends the signed bytes and then `extraBytes` more (Content-Length says so, or chunked). */
  | { readonly kind: 'longer'; readonly extraBytes: number; readonly chunked?: boolean }
  /** Ends `missingBytes` early, with a matching Content-Length. */
  | { readonly kind: 'shorter'; readonly missingBytes: number }
  /** Same length, one byte flipped in the middle. */
  | { readonly kind: 'corrupt' }
  /** `bytesPerTick` every `tickMs`, at most `maxTicks` ticks, then the socket is destroyed. */
  | {
      readonly kind: 'drip';
      readonly bytesPerTick: number;
      readonly tickMs: number;
      readonly maxTicks: number;
    }
  /** Sends `afterBytes`, then nothing for `holdMs`, then destroys the socket. */
  | { readonly kind: 'stall'; readonly afterBytes: number; readonly holdMs: number }
  /** Sends `afterBytes` and destroys the socket; `times` responses, or always. */
  | {
      readonly kind: 'drop';
      readonly afterBytes: number;
      readonly times?: number;
      /** The attack once `times` drops are done (default: honest service). */
      readonly then?: ArtifactAttack;
    }
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterS?: number }
  /** Answers every Range request with the whole body and 200 (allowed: RFC 9110 §14.2). */
  | { readonly kind: 'ignore-range' }
  /** Answers a Range request with 206 but the whole body, labelled `bytes 0-(size-1)/size`. */
  | { readonly kind: 'wrong-content-range' }
  /** 302 to `location`. */
  | { readonly kind: 'redirect'; readonly location: string };

const CHUNK = 64 * 1024;

/** Parses a single `bytes=a-` or `bytes=a-b` range against `size`; anything else is ignored. */
function parseRange(value: string | undefined, size: number): [number, number] | 'bad' | undefined {
  if (value === undefined) return undefined;
  const m = /^bytes=(\d+)-(\d*)$/.exec(value.trim());
  if (m === null) return undefined;
  const start = Number(m[1]);
  const end = m[2] === '' || m[2] === undefined ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'bad';
  return [start, end + 1];
}

async function* chunks(blob: Blob, start: number, end: number): AsyncGenerator<Uint8Array> {
  if (blob.bytes !== undefined) {
    for (let at = start; at < end; at += CHUNK)
      yield blob.bytes.subarray(at, Math.min(end, at + CHUNK));
    return;
  }
  if (blob.path === undefined || end <= start) return;
  const stream = createReadStream(blob.path, { start, end: end - 1, highWaterMark: 1024 * 1024 });
  for await (const chunk of stream) yield chunk as Buffer;
}

async function write(res: ServerResponse, chunk: Uint8Array, count: (n: number) => void) {
  if (res.destroyed) return false;
  count(chunk.length);
  if (!res.write(chunk)) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
  return !res.destroyed;
}

/** Serves `blob` (or the requested range of it), applying `attack` when given. */
export function serveArtifact(
  req: IncomingMessage,
  res: ServerResponse,
  blob: Blob,
  attack: ArtifactAttack | undefined,
  count: (n: number) => void,
): void {
  void run(req, res, blob, attack, count).catch(() => res.destroy());
}

async function run(
  req: IncomingMessage,
  res: ServerResponse,
  blob: Blob,
  attack: ArtifactAttack | undefined,
  count: (n: number) => void,
): Promise<void> {
  if (attack?.kind === 'status') {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (attack.retryAfterS !== undefined) headers['retry-after'] = String(attack.retryAfterS);
    res.writeHead(attack.status, headers);
    res.end('{"ok":false,"error":"attack","code":"ATTACK"}');
    return;
  }
  if (attack?.kind === 'redirect') {
    res.writeHead(302, { location: attack.location, 'content-length': 0 });
    res.end();
    return;
  }
  const etag = `"${blob.sha256}"`;
  const ifRange = req.headers['if-range'];
  // RFC 9110 §13.1.5: a Range is honoured only when If-Range (if sent) matches our validator.
  const honoured = attack?.kind !== 'ignore-range' && (ifRange === undefined || ifRange === etag);
  const range = honoured ? parseRange(req.headers.range, blob.size) : undefined;
  if (range === 'bad') {
    res.writeHead(416, { 'content-range': `bytes */${blob.size}` });
    res.end();
    return;
  }
  const lying = attack?.kind === 'wrong-content-range' && range !== undefined;
  const [start, end] = lying ? [0, blob.size] : (range ?? [0, blob.size]);
  let length = end - start;
  if (attack?.kind === 'longer' && end === blob.size) length += attack.extraBytes;
  if (attack?.kind === 'shorter') length = Math.max(0, length - attack.missingBytes);
  const headers: Record<string, string | number> = {
    'content-type': 'application/octet-stream',
    etag,
    'accept-ranges': 'bytes',
    'last-modified': 'Sat, 01 Jan 2000 00:00:00 GMT',
  };
  if (!(attack?.kind === 'longer' && attack.chunked === true)) headers['content-length'] = length;
  if (range !== undefined) headers['content-range'] = `bytes ${start}-${end - 1}/${blob.size}`;
  res.writeHead(range === undefined ? 200 : 206, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await body(res, blob, start, end, length, attack, count);
}

async function body(
  res: ServerResponse,
  blob: Blob,
  start: number,
  end: number,
  length: number,
  attack: ArtifactAttack | undefined,
  count: (n: number) => void,
): Promise<void> {
  const middle = Math.floor(blob.size / 2);
  let at = start;
  let sent = 0;
  let ticks = 0;
  for await (const original of chunks(blob, start, end)) {
    let chunk = original;
    if (attack?.kind === 'corrupt' && middle >= at && middle < at + chunk.length) {
      chunk = new Uint8Array(chunk);
      chunk[middle - at] = (chunk[middle - at] ?? 0) ^ 0xff;
    }
    at += original.length;
    if (sent + chunk.length > length) chunk = chunk.subarray(0, length - sent);
    if (attack?.kind === 'drop' || attack?.kind === 'stall') {
      const room = attack.afterBytes - sent;
      if (room <= 0) break;
      if (chunk.length > room) chunk = chunk.subarray(0, room);
    }
    if (attack?.kind === 'drip') {
      for (let i = 0; i < chunk.length; i += attack.bytesPerTick) {
        if (ticks++ >= attack.maxTicks) break;
        if (!(await write(res, chunk.subarray(i, i + attack.bytesPerTick), count))) return;
        await sleep(attack.tickMs);
      }
      if (ticks >= attack.maxTicks) break;
      sent += chunk.length;
      continue;
    }
    if (!(await write(res, chunk, count))) return;
    sent += chunk.length;
    if (sent >= length) break;
  }
  if (attack?.kind === 'longer' && end === blob.size) {
    const extra = new Uint8Array(Math.min(attack.extraBytes, CHUNK)).fill(0x41);
    for (let left = attack.extraBytes; left > 0 && !res.destroyed; left -= extra.length) {
      if (!(await write(res, extra.subarray(0, Math.min(left, extra.length)), count))) return;
      // A turn of the event loop between writes: the client shares this process, and without
      // it the loop fills the kernel's socket buffers (megabytes on loopback) before the client
      // can run at all, so the count would measure those buffers, not how soon it hung up.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  if (attack?.kind === 'stall') await sleep(attack.holdMs);
  if (attack?.kind === 'drop' || attack?.kind === 'stall' || attack?.kind === 'drip') {
    res.destroy();
    return;
  }
  res.end();
}
