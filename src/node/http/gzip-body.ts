/**
 * Inflates a gzip-coded answer (docs/PROTOCOL.md §2.7.6, Content coding): the Node side of the
 * fetch port's `acceptGzip` (src/core/ports.ts FetchInit).
 *
 * A small answer (the manifest of a release of a thousand artifacts is about 70 KiB coded) is
 * held as it arrives and inflated in one synchronous call once its last byte is in: the
 * stream form ran each 16 KiB of output through libuv's thread pool and back, with the
 * stream machinery's ticks between, about 10 ms more than the inflating itself at 1,000
 * entries (docs/UPDATER.md §11.3). That one call is bounded twice, so memory stays bounded
 * whatever the server sends: the coded bytes it holds (ONE_CALL_CODED_BYTES) and the bytes it
 * may inflate to (ONE_CALL_INFLATED_BYTES, zlib's `maxOutputLength`). Past either bound the
 * answer is inflated as it streams instead, from its first byte: zlib keeps to the stream's
 * back-pressure, so a small coded chunk that inflates to gigabytes is pulled a chunk at a
 * time as the core reads it, and the core's cap on the inflated bytes (fetch-manifest.ts
 * readCapped) stops a gzip bomb with bounded memory, as it does for any answer. An answer
 * whose first PROBE_CODED_BYTES inflate more than PROBE_RATIO-fold (JSON codes three- to
 * fourfold, a bomb of zeros a thousandfold) is streamed at once, so such a bomb is read no
 * further than the stream form reads it.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UpdateError } from '#core/errors.js';
import { safeUrl } from '#core/transfer/index.js';
import { zlib } from '../lazy-builtin.js';

/** The most coded bytes held for one synchronous inflate. */
export const ONE_CALL_CODED_BYTES = 256 * 1024;
/** The most bytes one synchronous inflate may make; a larger answer is streamed. */
export const ONE_CALL_INFLATED_BYTES = 4 * 1024 * 1024;
/** Coded bytes after which what is held is inflated once as a probe (see PROBE_RATIO). */
export const PROBE_CODED_BYTES = 16 * 1024;
/** More inflated bytes per coded byte than this in the probe: streamed from the start. */
export const PROBE_RATIO = 16;
/** The output chunk of the stream form: fewer round trips through the pool than zlib's 16 KiB. */
const STREAM_CHUNK_BYTES = 64 * 1024;

/**
 * Yielded for each coded chunk held: no inflated bytes yet, but the reader's stall watch
 * counts the wire bytes (`onWire`) as they come, as it did when every chunk was inflated at
 * once.
 */
const NOTHING_YET = new Uint8Array(0);

/**
 * A zlib refusal: a corrupt or truncated stream. zlib errors carry a `Z_…` code; fetch()'s own
 * inflating (undici) hands one back as the error or as its cause.
 */
export function isZlibError(error: unknown): boolean {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

function refusal(error: unknown, url: string): unknown {
  if (error instanceof UpdateError || !isZlibError(error)) return error;
  return new UpdateError('CONTENT_ENCODING', `gzip answer does not inflate: ${String(error)}`, {
    cause: error,
    transient: true,
    details: { url: safeUrl(url) },
  });
}

/** Past ONE_CALL_INFLATED_BYTES, zlib's one call throws this and keeps nothing. */
function isPastOneCall(error: unknown): boolean {
  return (
    error instanceof RangeError && (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE'
  );
}

/** Whether the coded prefix `held` inflates past `max` bytes (a truncated stream is no fault here). */
function inflatesPast(held: readonly Uint8Array[], heldBytes: number, max: number): boolean {
  const z = zlib();
  try {
    z.gunzipSync(Buffer.concat(held, heldBytes), {
      finishFlush: z.constants.Z_SYNC_FLUSH,
      maxOutputLength: max,
    });
  } catch (error) {
    // A corrupt prefix is refused by the one call or the stream, whichever comes.
    return isPastOneCall(error);
  }
  return false;
}

/**
 * The inflated bytes of `coded`. `onWire` is told each coded chunk's length as it is read.
 * Errors of `coded` (NETWORK, ABORTED) pass through; a stream zlib refuses (corrupt, truncated,
 * not gzip) is CONTENT_ENCODING. Leaving early (the core's cap) stops both streams.
 */
export async function* gunzipBody(
  coded: AsyncIterable<Uint8Array>,
  url: string,
  onWire: (count: number) => void,
): AsyncGenerator<Uint8Array> {
  const source = coded[Symbol.asyncIterator]();
  const held: Uint8Array[] = [];
  let heldBytes = 0;
  try {
    for (;;) {
      const next = await source.next();
      if (next.done === true) break;
      onWire(next.value.length);
      held.push(next.value);
      const before = heldBytes;
      heldBytes += next.value.length;
      const probe = before < PROBE_CODED_BYTES && heldBytes >= PROBE_CODED_BYTES;
      if (
        heldBytes > ONE_CALL_CODED_BYTES ||
        (probe && inflatesPast(held, heldBytes, PROBE_RATIO * heldBytes))
      ) {
        yield* streamed(held, source, url, onWire);
        return;
      }
      yield NOTHING_YET;
    }
    let whole: Buffer;
    try {
      whole = zlib().gunzipSync(Buffer.concat(held, heldBytes), {
        maxOutputLength: ONE_CALL_INFLATED_BYTES,
      });
    } catch (error) {
      if (!isPastOneCall(error)) throw refusal(error, url);
      yield* streamed(held, undefined, url, onWire);
      return;
    }
    held.length = 0;
    yield whole;
  } finally {
    // Left early (the core's cap, an error): the connection goes too.
    await source.return?.();
  }
}

/**
 * `first` then the rest of `rest` inflated as they stream, STREAM_CHUNK_BYTES at a time under
 * the reader's back-pressure (the core's cap stops a bomb here).
 */
async function* streamed(
  first: Uint8Array[],
  rest: AsyncIterator<Uint8Array> | undefined,
  url: string,
  onWire: (count: number) => void,
): AsyncGenerator<Uint8Array> {
  const gunzip = zlib().createGunzip({ chunkSize: STREAM_CHUNK_BYTES });
  const counted = (async function* () {
    // Handed on one at a time and dropped: held chunks are not kept past their turn.
    while (first.length > 0) yield first.shift() as Uint8Array;
    if (rest === undefined) return;
    for (let next = await rest.next(); next.done !== true; next = await rest.next()) {
      onWire(next.value.length);
      yield next.value;
    }
  })();
  // The pipeline's own promise settles with the first error; iterating `gunzip` sees it too.
  const done = pipeline(Readable.from(counted, { objectMode: false }), gunzip);
  done.catch(() => undefined);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    throw refusal(error, url);
  } finally {
    gunzip.destroy();
  }
}
