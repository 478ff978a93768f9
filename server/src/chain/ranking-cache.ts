/**
 * Cached response bytes of GET /api/chain/active (docs/CHAIN.md §Ranking). Each window's top list
 * is computed at most once per stamp (as_of_unit + data version), for the largest limit, and
 * each (window, limit) pair is serialized once from it; requests then get ready bytes with a
 * precomputed Content-Type and Content-Length. A new stamp drops everything, and both maps are
 * capped, so a client cycling through all 360,000 pairs cannot grow memory without bound.
 */
import type { ActivityResponse } from '#protocol';
import { MAX_LIMIT, UNIT_MS } from '#protocol';
import type { RankedMachine } from './window-ranking.js';

export const MAX_CACHED_WINDOWS = 64;
export const MAX_CACHED_BODIES = 512;

export interface CachedBody {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly contentLength: string;
  /** Every response header of the route, built once per body (CORS open: docs/PROTOCOL.md §5). */
  readonly headers: Readonly<Record<string, string>>;
  readonly response: ActivityResponse;
}

interface WindowTop {
  readonly top: readonly RankedMachine[];
  readonly generatedAt: string;
  /** Each ranked machine's series (docs/PROTOCOL.md §5), computed on the first series=1 ask. */
  series?: readonly (readonly number[])[];
}

/** Key bit of a series=1 body: window * 1024 + limit stays below it (3600 * 1024 + 100). */
const SERIES_KEY = 1 << 22;

export const ACTIVITY_CONTENT_TYPE = 'application/json; charset=utf-8';

export class RankingCache {
  #asOfUnit = Number.NaN;
  #version = Number.NaN;
  readonly #windows = new Map<number, WindowTop>();
  readonly #bodies = new Map<number, CachedBody>();
  #recomputes = 0;

  /** How many window rankings were computed so far (tests check the once-per-unit rule). */
  get recomputes(): number {
    return this.#recomputes;
  }

  /**
   * Returns the bytes for (window, limit) as of `asOfUnit`, computing them only on a miss.
   * @param compute ranks one window, returning at most MAX_LIMIT machines best first.
   * @param computeSeries given: the body carries each machine's series (series=1), computed
   *   at most once per window and stamp like the ranking itself.
   */
  get(
    asOfUnit: number,
    version: number,
    window: number,
    limit: number,
    compute: (window: number) => RankedMachine[],
    nowIso: () => string,
    computeSeries?: (window: number, top: readonly RankedMachine[]) => number[][],
  ): CachedBody {
    if (asOfUnit !== this.#asOfUnit || version !== this.#version) {
      this.#asOfUnit = asOfUnit;
      this.#version = version;
      this.#windows.clear();
      this.#bodies.clear();
    }
    // window <= 3600 and limit <= 100, so this key is unique per pair.
    const key = window * 1024 + limit + (computeSeries === undefined ? 0 : SERIES_KEY);
    const hit = this.#bodies.get(key);
    if (hit !== undefined) return hit;
    let windowTop = this.#windows.get(window);
    if (windowTop === undefined) {
      windowTop = { top: compute(window), generatedAt: nowIso() };
      this.#recomputes++;
      setCapped(this.#windows, window, windowTop, MAX_CACHED_WINDOWS);
    }
    if (computeSeries !== undefined && windowTop.series === undefined) {
      windowTop.series = computeSeries(window, windowTop.top);
    }
    const series = computeSeries === undefined ? undefined : windowTop.series;
    const response: ActivityResponse = {
      ok: true,
      window,
      limit,
      unit_ms: UNIT_MS,
      as_of_unit: asOfUnit,
      generated_at: windowTop.generatedAt,
      machines: windowTop.top.slice(0, Math.min(limit, MAX_LIMIT)).map((m, i) => ({
        rank: i + 1,
        id: m.id,
        name: m.name,
        transitions: m.transitions,
        ...(series === undefined ? {} : { series: series[i] ?? [] }),
      })),
    };
    const bytes = Buffer.from(JSON.stringify(response), 'utf8');
    const body: CachedBody = {
      bytes,
      contentType: ACTIVITY_CONTENT_TYPE,
      contentLength: String(bytes.length),
      headers: {
        'content-type': ACTIVITY_CONTENT_TYPE,
        'content-length': String(bytes.length),
        'access-control-allow-origin': '*',
      },
      response,
    };
    setCapped(this.#bodies, key, body, MAX_CACHED_BODIES);
    return body;
  }

  clear(): void {
    this.#asOfUnit = Number.NaN;
    this.#version = Number.NaN;
    this.#windows.clear();
    this.#bodies.clear();
  }
}

/** Inserts into a Map, evicting the oldest insertion first once `cap` is reached. */
function setCapped<K, V>(map: Map<K, V>, key: K, value: V, cap: number): void {
  if (map.size >= cap) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}
