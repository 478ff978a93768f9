/**
 * The addresses already over a rate limit, answered before Fastify (docs/SERVER.md §Rate
 * limits). Once the limiter of rate-limits.ts has used up an address's quota on a scope, it
 * notes the address here until its window ends; the raw server (raw-first-server.ts) then
 * answers that address's next requests on the scope's routes with the limiter's own 429 (same
 * code, body, Retry-After and nosniff) without routing, hooks or a store look-up, so a flood
 * costs a parse and a write. The Fastify limiter stays the authority: a request this misses
 * (a path spelled another way that Fastify still routes, a full table) is refused there.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '#protocol';

/** Which limit: every request counts, or only the failures (rate-limits.ts LimitedRoutes). */
export type LimitScope = 'every' | 'failures';

const SCOPES: readonly LimitScope[] = ['every', 'failures'];
const JSON_TYPE = 'application/json; charset=utf-8';

/** The message of every 429 RATE_LIMITED, from the limiter and from here alike. */
export function rateLimitedMessage(retryAfterS: number): string {
  return `too many requests from this address; retry in ${retryAfterS} s`;
}

/** Seconds a refused client is told to wait: the rest of its window, at least one. */
export function retryAfterSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

interface Pattern {
  /** The URL pattern's segments; one starting with ':' matches any non-empty segment. */
  readonly segments: readonly string[];
  readonly methods: Set<string>;
}

/** Fastify URL patterns with their methods, matched against a raw request's method and URL. */
export class RouteSet {
  readonly #patterns = new Map<string, Pattern>();

  add(url: string, methods: readonly string[]): void {
    let pattern = this.#patterns.get(url);
    if (pattern === undefined) {
      pattern = { segments: url.split('/'), methods: new Set() };
      this.#patterns.set(url, pattern);
    }
    for (const m of methods) pattern.methods.add(m.toUpperCase());
  }

  has(method: string, url: string): boolean {
    const q = url.indexOf('?');
    const segments = (q < 0 ? url : url.slice(0, q)).split('/');
    for (const p of this.#patterns.values()) {
      if (p.methods.has(method) && matches(p.segments, segments)) return true;
    }
    return false;
  }
}

function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  if (pattern.length !== segments.length) return false;
  for (let i = 0; i < pattern.length; i += 1) {
    const p = pattern[i] ?? '';
    const s = segments[i] ?? '';
    if (p.startsWith(':') ? s === '' : p !== s) return false;
  }
  return true;
}

export class OverLimit {
  /** At most this many addresses are noted per scope; past it the limiter alone refuses. */
  static readonly MAX_ADDRESSES = 10_000;
  readonly #until: Record<LimitScope, Map<string, number>> = {
    every: new Map(),
    failures: new Map(),
  };
  readonly #routes: Record<LimitScope, RouteSet> = {
    every: new RouteSet(),
    failures: new RouteSet(),
  };
  #refused = 0;

  /** @param now the clock of the limiter's store (its windows are in Date.now time) */
  constructor(private readonly now: () => number = Date.now) {}

  /** Requests answered 429 here, before Fastify. */
  get refused(): number {
    return this.#refused;
  }

  /** Notes a limited route of `scope` (from Fastify's onRoute: its URL pattern and methods). */
  route(scope: LimitScope, url: string, method: string | readonly string[]): void {
    this.#routes[scope].add(url, typeof method === 'string' ? [method] : method);
  }

  /** Notes that `address` has no quota left in `scope` for `ttlMs` more. */
  mark(scope: LimitScope, address: string, ttlMs: number): void {
    const map = this.#until[scope];
    const now = this.now();
    if (map.size >= OverLimit.MAX_ADDRESSES && !map.has(address)) {
      for (const [a, until] of map) if (until <= now) map.delete(a);
      if (map.size >= OverLimit.MAX_ADDRESSES) return;
    }
    map.set(address, now + ttlMs);
  }

  /** Forgets every address and the count (the dev reset). */
  clear(): void {
    this.#until.every.clear();
    this.#until.failures.clear();
    this.#refused = 0;
  }

  /** A RawHandler: answers 429 when the request's address is over its quota on its route. */
  readonly handle = (request: IncomingMessage, response: ServerResponse): boolean => {
    if (this.#until.every.size === 0 && this.#until.failures.size === 0) return false;
    const address = request.socket.remoteAddress ?? '';
    for (const scope of SCOPES) {
      const map = this.#until[scope];
      const until = map.get(address);
      if (until === undefined) continue;
      const left = until - this.now();
      if (left <= 0) {
        map.delete(address);
        continue;
      }
      if (!this.#routes[scope].has(request.method ?? '', request.url ?? '')) continue;
      this.#refused += 1;
      writeRateLimited(response, retryAfterSeconds(left));
      return true;
    }
    return false;
  };
}

function writeRateLimited(response: ServerResponse, seconds: number): void {
  const body = JSON.stringify(errorBody('RATE_LIMITED', rateLimitedMessage(seconds)));
  response.writeHead(429, {
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(body),
    'retry-after': String(seconds),
    // Set by the request guard too; here so the answer never depends on the order.
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
}
