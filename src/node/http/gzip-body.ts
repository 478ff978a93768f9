/**
 * Inflates a gzip-coded answer as it streams (docs/PROTOCOL.md §2.7.6, Content coding): the
 * Node side of the fetch port's `acceptGzip` (src/core/ports.ts FetchInit). zlib keeps to
 * its stream's back-pressure, so a small coded chunk that inflates to gigabytes is pulled a
 * chunk at a time as the core reads it, and the core's cap on the inflated bytes
 * (fetch-manifest.ts readCapped) stops a gzip bomb with bounded memory.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UpdateError } from '#core/errors.js';
import { safeUrl } from '#core/transfer/index.js';
import { zlib } from '../lazy-builtin.js';

/**
 * A zlib refusal: a corrupt or truncated stream. zlib errors carry a `Z_…` code; fetch()'s own
 * inflating (undici) hands one back as the error or as its cause.
 */
export function isZlibError(error: unknown): boolean {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' && code.startsWith('Z_');
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
  const gunzip = zlib().createGunzip();
  const counted = (async function* () {
    for await (const chunk of coded) {
      onWire(chunk.length);
      yield chunk;
    }
  })();
  // The pipeline's own promise settles with the first error; iterating `gunzip` sees it too.
  const done = pipeline(Readable.from(counted, { objectMode: false }), gunzip);
  done.catch(() => undefined);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } catch (error) {
    if (error instanceof UpdateError || !isZlibError(error)) throw error;
    throw new UpdateError('CONTENT_ENCODING', `gzip answer does not inflate: ${String(error)}`, {
      cause: error,
      transient: true,
      details: { url: safeUrl(url) },
    });
  } finally {
    gunzip.destroy();
  }
}
