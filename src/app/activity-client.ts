/**
 * Main-process client of GET /api/chain/active (docs/PROTOCOL.md §5). Only the main process
 * talks to the network; the window gets an already classified ActivityResult. Bounded: a
 * timeout and a body size cap, and the body is validated before anything is shown.
 */
import type { SessionFetch } from '#node/http/index.js';
import { SERIES_MAX_POINTS, type ActiveMachine } from '#protocol/activity.js';
import type { ActivityResult } from '#preload/ipc-contract.js';

export interface ActivityClientOptions {
  readonly baseUrl: string;
  /** Machines to ask for; the widget shows the top 10. */
  readonly limit?: number;
  readonly timeoutMs?: number;
  readonly maxBodyBytes?: number;
  /** The app's session fetch (Electron's net.fetch in the tray app); default the global one. */
  readonly fetch?: SessionFetch;
}

export const DEFAULT_ACTIVITY_TIMEOUT_MS = 5_000;
/** 10 entries are well under 4 KiB; 64 KiB leaves room without trusting the server. */
export const DEFAULT_ACTIVITY_MAX_BODY_BYTES = 64 * 1024;

/** Fetches and classifies the ranking. Never throws: every failure becomes a result state. */
export async function fetchActivity(options: ActivityClientOptions): Promise<ActivityResult> {
  const doFetch = options.fetch ?? fetch;
  const limit = options.limit ?? 10;
  const url = new URL('api/chain/active', withSlash(options.baseUrl));
  url.searchParams.set('limit', String(limit));
  // Each machine's trend for the widget's sparkline (docs/PROTOCOL.md §5); a registry that
  // does not know the parameter ignores it, and the rows then draw none.
  url.searchParams.set('series', '1');
  let response: Response;
  try {
    response = await doFetch(url, {
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_ACTIVITY_TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
  } catch {
    return { state: 'offline', message: 'The registry cannot be reached.' };
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return {
      state: 'error',
      code: 'HTTP_STATUS',
      message: `The registry answered with status ${response.status}.`,
    };
  }
  let text: string;
  try {
    text = await readCapped(response, options.maxBodyBytes ?? DEFAULT_ACTIVITY_MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      return { state: 'error', code: 'TOO_LARGE', message: 'The ranking was too large.' };
    }
    return { state: 'offline', message: 'The connection broke while reading the ranking.' };
  }
  return parseActivity(text, limit);
}

class BodyTooLarge extends Error {}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new BodyTooLarge();
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new BodyTooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

/** Validates the 200 body (src/protocol/activity.ts) and keeps the first `limit` machines. */
export function parseActivity(text: string, limit: number): ActivityResult {
  const malformed: ActivityResult = {
    state: 'error',
    code: 'MALFORMED',
    message: 'The registry sent a ranking we cannot read.',
  };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return malformed;
  }
  if (!isRecord(body) || body['ok'] !== true || !Array.isArray(body['machines'])) return malformed;
  const machines: ActiveMachine[] = [];
  for (const entry of body['machines'] as unknown[]) {
    if (!isMachine(entry)) return malformed;
    machines.push({
      rank: entry.rank,
      id: entry.id,
      name: entry.name,
      transitions: entry.transitions,
      ...(entry.series === undefined ? {} : { series: [...entry.series] }),
    });
  }
  const generatedAt = typeof body['generated_at'] === 'string' ? body['generated_at'] : '';
  const windowUnits = typeof body['window'] === 'number' ? body['window'] : 0;
  const unitMs =
    typeof body['unit_ms'] === 'number' && Number.isFinite(body['unit_ms']) && body['unit_ms'] > 0
      ? body['unit_ms']
      : 0;
  return { state: 'ok', machines: machines.slice(0, limit), generatedAt, windowUnits, unitMs };
}

function isMachine(value: unknown): value is ActiveMachine {
  return (
    isRecord(value) &&
    Number.isSafeInteger(value['rank']) &&
    typeof value['id'] === 'string' &&
    typeof value['name'] === 'string' &&
    Number.isSafeInteger(value['transitions']) &&
    (value['transitions'] as number) >= 0 &&
    (value['series'] === undefined || isSeries(value['series']))
  );
}

/** At most SERIES_MAX_POINTS counts, each a non-negative safe integer. */
function isSeries(value: unknown): value is readonly number[] {
  return (
    Array.isArray(value) &&
    value.length <= SERIES_MAX_POINTS &&
    value.every((v) => Number.isSafeInteger(v) && (v as number) >= 0)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withSlash(baseUrl: string): string {
  return baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
}
