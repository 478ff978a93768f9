/**
 * Rate limits per client address (docs/SERVER.md §Rate limits), on @fastify/rate-limit's
 * in-memory store: the routes that mint count every request; the routes that check a
 * credential (token, revocation, introspection, manifest, artifact) count only their failures
 * (400, 401, 403), so a legitimate client is never slowed by its own successes while key and
 * secret guessing is. A whole minute's quota may come as one burst; past it the answer is
 * `429 RATE_LIMITED` with `Retry-After`. `perMinute` 0 installs nothing. The dev reset clears
 * every count (`clear`): a QA suite's next test starts with the whole quota. An address whose
 * quota is used is noted in `over` (over-limit.ts), whose raw handler refuses its next
 * requests before Fastify.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OverLimit, rateLimitedMessage, retryAfterSeconds } from './over-limit.js';
import { sendError } from './send-error.js';

/** Which routes (Fastify URL patterns) are limited, and how. */
export interface LimitedRoutes {
  /** Every request counts. */
  readonly every: readonly string[];
  /** Only answers with a FAILURE_STATUS count; a request is refused once the quota is used. */
  readonly failures: readonly string[];
}

export interface RateLimitCounters {
  /** Requests answered 429 on `every` routes. */
  readonly limited_every: number;
  /** Requests answered 429 on `failures` routes. */
  readonly limited_failures: number;
  /** Failures counted against their address. */
  readonly failures_counted: number;
  /** Requests answered 429 before Fastify, from an address already over its quota. */
  readonly limited_early: number;
}

/** The installed limits: their live counters, and a clear of every count (the dev reset). */
export interface RateLimits {
  counters(): RateLimitCounters;
  clear(): void;
  /** The addresses over their quota, with the raw handler that refuses them before Fastify. */
  readonly over: OverLimit;
}

const FAILURE_STATUSES = new Set([400, 401, 403]);
const WINDOW_MS = 60_000;

type Check = ReturnType<FastifyInstance['createRateLimit']>;

/** Installs the limits on `app` (before any route) and returns their live counters. */
export async function installRateLimits(
  app: FastifyInstance,
  perMinute: number,
  routes: LimitedRoutes,
): Promise<RateLimits> {
  const counters = { limited_every: 0, limited_failures: 0, failures_counted: 0 };
  // Counts are kept per generation and address: a new generation starts every address afresh,
  // and the old entries age out of the store's bounded LRU (the library's store has no clear).
  let generation = 0;
  const suspects = new Suspects();
  const over = new OverLimit();
  const limits: RateLimits = {
    over,
    counters: () => ({ ...counters, limited_early: over.refused }),
    clear: () => {
      generation += 1;
      suspects.clear();
      over.clear();
      counters.limited_every = 0;
      counters.limited_failures = 0;
      counters.failures_counted = 0;
    },
  };
  if (perMinute === 0) return limits;
  await app.register(rateLimit, { global: false });
  const keyGenerator = (request: FastifyRequest): string => `${generation}:${request.ip}`;
  addLimitHooks(app, {
    every: app.createRateLimit({ max: perMinute, timeWindow: WINDOW_MS, keyGenerator }),
    failures: app.createRateLimit({ max: perMinute, timeWindow: WINDOW_MS, keyGenerator }),
    everySet: new Set(routes.every),
    failureSet: new Set(routes.failures),
    counters,
    suspects,
    over,
  });
  return limits;
}

interface Limiter {
  readonly every: Check;
  readonly failures: Check;
  readonly everySet: ReadonlySet<string>;
  readonly failureSet: ReadonlySet<string>;
  readonly counters: { limited_every: number; limited_failures: number; failures_counted: number };
  readonly suspects: Suspects;
  readonly over: OverLimit;
}

/** The hooks that note the limited routes, check each request and count failures. */
function addLimitHooks(app: FastifyInstance, limiter: Limiter): void {
  const { every, failures, everySet, failureSet, counters, suspects, over } = limiter;
  app.addHook('onRoute', (route) => {
    if (everySet.has(route.url)) over.route('every', route.url, route.method);
    if (failureSet.has(route.url)) over.route('failures', route.url, route.method);
  });
  app.addHook('onRequest', async (request, reply) => {
    const url = request.routeOptions.url ?? '';
    if (everySet.has(url)) {
      const state = await every(request);
      if (state.isAllowed) return undefined;
      // The last of the quota used (or past it): the next ones are refused before Fastify.
      if (state.remaining === 0) over.mark('every', request.ip, state.ttl);
      if (state.isExceeded) {
        counters.limited_every += 1;
        return refuse(reply, state.ttl);
      }
    } else if (failureSet.has(url) && suspects.has(request.ip)) {
      // A peek: the quota is used once `perMinute` failures are counted. An address with no
      // failure counted cannot be over it: its requests (a legitimate poller's) skip the store.
      const state = await failures(request, { increment: false });
      if (!state.isAllowed && state.remaining === 0) {
        counters.limited_failures += 1;
        over.mark('failures', request.ip, state.ttl);
        return refuse(reply, state.ttl);
      }
    }
    return undefined;
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!failureSet.has(request.routeOptions.url ?? '')) return;
    if (!FAILURE_STATUSES.has(reply.statusCode)) return;
    counters.failures_counted += 1;
    suspects.add(request.ip);
    await count(failures, request, over);
  });
}

/**
 * The addresses with a failure counted since the last clear. Bounded: past MAX_SUSPECTS every
 * address is one (each request peeks at the store again), so the bound never lets a limited
 * address through.
 */
export class Suspects {
  static readonly MAX = 10_000;
  readonly #set = new Set<string>();
  #everyone = false;

  has(address: string): boolean {
    return this.#everyone || this.#set.has(address);
  }

  add(address: string): void {
    if (this.#everyone) return;
    this.#set.add(address);
    if (this.#set.size >= Suspects.MAX) {
      this.#everyone = true;
      this.#set.clear();
    }
  }

  clear(): void {
    this.#set.clear();
    this.#everyone = false;
  }
}

/** Counts a failure; the one that uses the quota notes its address as over it. */
async function count(check: Check, request: FastifyRequest, over: OverLimit): Promise<void> {
  const state = await check(request);
  if (!state.isAllowed && state.remaining === 0) over.mark('failures', request.ip, state.ttl);
}

function refuse(reply: FastifyReply, ttlMs: number): FastifyReply {
  const seconds = retryAfterSeconds(ttlMs);
  return sendError(reply, 429, 'RATE_LIMITED', rateLimitedMessage(seconds), {
    'retry-after': String(seconds),
  });
}
