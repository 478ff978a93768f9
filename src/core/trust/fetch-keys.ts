/**
 * GET /api/updates/keys (docs/PROTOCOL.md §2.7.4): the whole key chain, oldest first, for a
 * client whose trusted key set is older than the newest 8 links a manifest answer carries (or
 * a new install after more than 8 rotations). Same bearer and limits as the manifest; nothing
 * here trusts the links: the walk in trust-checks.ts verifies each one.
 */
import type { ParsedEnvelope } from '#protocol/envelope.js';
import { parseKeysAnswer } from '#protocol/manifest-answer.js';
import { readCapped } from './fetch-manifest.js';
import { errorForResponse } from '../transfer/index.js';
import { startGet, type HttpContext } from '../transfer/index.js';
import { fromProtocolError } from '../wire-errors.js';

export const KEYS_PATH = 'api/updates/keys';

/** Fetches and parses the key chain answer, reading at most `maxManifestBytes`. */
export async function fetchKeyChain(
  ctx: HttpContext,
  signal: AbortSignal,
): Promise<readonly ParsedEnvelope[]> {
  const max = ctx.limits.maxManifestBytes;
  const url = new URL(KEYS_PATH, ctx.endpoint.base);
  const exchange = await startGet(ctx, url, { accept: 'application/json' }, signal, 'keys');
  const { response } = exchange;
  let bytes: Uint8Array;
  try {
    if (response.status !== 200)
      throw await errorForResponse(response, 'keys', ctx.clock.nowMs(), exchange.safeUrl);
    bytes = await readCapped(exchange, max, 'key chain');
  } catch (error) {
    response.discard();
    throw exchange.finish(error) ?? error;
  }
  try {
    return parseKeysAnswer(bytes);
  } catch (error) {
    throw fromProtocolError(error);
  }
}
