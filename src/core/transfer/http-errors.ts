/**
 * Non-2xx answers -> UpdateError. 401/403 bodies are the service error body (docs/PROTOCOL.md
 * §1): SUBSCRIPTION_INACTIVE (src/protocol's ServerErrorCode table, shared with the server) is told apart from a missing or invalid machine key. 429 and 5xx
 * are transient and carry Retry-After when the server sent one.
 */
import { isErrorBody } from '#protocol/error-body.js';
import { ServerErrorCode } from '#protocol/server-error-code.js';
import { UpdateError } from '../errors.js';
import type { FetchResponse } from '../ports.js';
import { parseRetryAfter } from './retry-after.js';

/** Error bodies are small; more than this is not read. */
export const MAX_ERROR_BODY_BYTES = 16 * 1024;

/** Reads at most `maxBytes` of a body, then drops the connection. */
export async function readSmallBody(
  response: FetchResponse,
  maxBytes: number,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body) {
      const room = maxBytes - total;
      parts.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      total += Math.min(chunk.length, room);
      if (total >= maxBytes) break;
    }
  } catch {
    // An error body that fails half-way is still just an error: keep what arrived.
  } finally {
    response.discard();
  }
  return Buffer.concat(parts);
}

function bodyCode(bytes: Uint8Array): string | undefined {
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return isErrorBody(json) ? json.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Turns a refused response into its UpdateError (reads a bounded error body). `url` is the
 * answering URL as errors may name it (http-get.ts `Exchange.safeUrl`); it goes into the
 * error's details with the status (docs/UPDATER.md §7). Every caller in src/core passes it.
 */
export async function errorForResponse(
  response: FetchResponse,
  what: string,
  nowMs: number,
  url?: string,
): Promise<UpdateError> {
  const status = response.status;
  const details = url === undefined ? { status } : { url, status };
  const retryAfterMs = parseRetryAfter(response.header('retry-after'), nowMs);
  const retry = retryAfterMs === undefined ? {} : { retryAfterMs };
  if (status === 401 || status === 403) {
    const code = bodyCode(await readSmallBody(response, MAX_ERROR_BODY_BYTES));
    if (code === ServerErrorCode.SUBSCRIPTION_INACTIVE) {
      return new UpdateError('SUBSCRIPTION_INACTIVE', `${what}: the subscription is not active`, {
        details,
      });
    }
    return new UpdateError(
      'UNAUTHORIZED',
      `${what}: machine key refused (${code ?? `HTTP ${status}`})`,
      { details },
    );
  }
  response.discard();
  if (status === 429) {
    return new UpdateError('RATE_LIMITED', `${what}: rate limited (HTTP 429)`, {
      ...retry,
      transient: true,
      details,
    });
  }
  return new UpdateError('HTTP_STATUS', `${what}: unexpected HTTP ${status}`, {
    ...retry,
    transient: status >= 500 || status === 408,
    details,
  });
}
