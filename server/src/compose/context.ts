/**
 * What every server module receives: options, clock, randomness, data directory and logger.
 * Built once by startServer() / buildApp(), never a global.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ServerClock } from '../platform/clock.js';
import type { LoadedConfig } from '../config/load-config.js';
import type { ServerOptions } from './options.js';
import type { RandomSource } from '../platform/random.js';

export interface ServerContext {
  /** With the config's values already merged under the explicit options (apply-config.ts). */
  readonly options: ServerOptions;
  /** The validated config (docs/SERVER.md §Config file); `{}` without one. */
  readonly config: LoadedConfig;
  readonly clock: ServerClock;
  readonly random: RandomSource;
  /** Absolute path of the data directory (created before modules start). */
  readonly dataDir: string;
  readonly log: FastifyBaseLogger;
  /** The server's public base URL, known once it listens ('' under app.inject()). */
  baseUrl(): string;
}
