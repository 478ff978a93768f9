/**
 * A server module is one area of the service (updates, OAuth, chain activity). app.ts composes
 * them; each owns its routes, its dev routes and its state, so areas never reach into each other.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { LimitedRoutes } from '../http/rate-limits.js';

export interface ServerModule<Api = unknown> {
  readonly name: string;
  /** Registers the public routes. */
  register(app: FastifyInstance): void | Promise<void>;
  /** Registers /api/dev/* routes; called only when the server runs with --dev. */
  registerDev?(app: FastifyInstance): void | Promise<void>;
  /** Clears runtime state (POST /api/dev/reset, startServer().reset()). */
  reset(): void | Promise<void>;
  /** Called when the server closes (timers, files). */
  close?(): void | Promise<void>;
  /**
   * Answers a hot public read ahead of Fastify's router (true when answered). Called on a real
   * port only, and only without --dev, so the dev request log and faults still see every
   * request; the same route stays registered in Fastify for app.inject() and dev runs.
   */
  readonly handleRaw?: (request: IncomingMessage, response: ServerResponse) => boolean;
  /** Routes rate-limited per client address (docs/SERVER.md §Rate limits). */
  readonly limitedRoutes?: LimitedRoutes;
  /** Fields added to the server's first stdout JSON line (e.g. qa_client_secret). */
  describe?(): Record<string, unknown>;
  /** In-process controls for QA, exposed on startServer()'s handle under `name`. */
  readonly api: Api;
}
