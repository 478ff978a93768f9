/**
 * Every option of the companion server, parsed from flags by main.ts or given in-process to
 * startServer(). Defaults live here, in one place, with units in their names. A `config` (file
 * or object, docs/SERVER.md §Config file) sets the deterministic state; an option given as
 * well wins over the config's value for the same setting.
 */
import type { ServerConfig } from '../config/server-config.js';
import type { IssueTokensHook } from '../oauth/tokens/claims.js';

export interface ServerOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** Listen address; loopback by default. */
  readonly host: string;
  /** Turns on the test-control API under /api/dev/* (404 without it). */
  readonly dev: boolean;
  /**
   * The deterministic set-up: a JSON file's path (`--config FILE`; relative paths inside it are
   * relative to the file) or the same object (relative paths are relative to the working
   * directory). Refused with CONFIG_INVALID naming the JSON path of the first bad field.
   */
  readonly config: ServerConfig | string | undefined;
  /**
   * In-process only: called before every token response to add or shape the ID token's extra
   * claims (and userinfo's) per client or subject. See oauth/claims.ts.
   */
  readonly onIssueTokens: IssueTokensHook | undefined;
  /** Data directory; undefined means a fresh temporary directory removed on close. */
  readonly dataDir: string | undefined;
  /** Seed for deterministic ids, secrets and simulation; undefined means CSPRNG. */
  readonly seed: number | undefined;
  /** File holding the node's Ed25519 secret key; default: generated into the data dir. */
  readonly nodeKeyFile: string | undefined;
  /** Chain simulator on or off. */
  readonly simulate: boolean;
  /** Number of simulated machines. */
  readonly simulateMachines: number;
  /** Secret of the confidential client `qa-web`; undefined means random. */
  readonly qaClientSecret: string | undefined;
  /** Optional JSON file with more OAuth clients. */
  readonly clientsFile: string | undefined;
  /** Issuer URL for OAuth/OIDC; default: the server's own URL. */
  readonly issuer: string | undefined;
  /** pino level, or 'silent'. */
  readonly logLevel: string;
  /** Request bodies above this size are refused with 413 (400 on OAuth routes). */
  readonly maxBodyBytes: number;
  /**
   * Lifetime of a freshness statement in seconds; a new one is signed once half of it is gone
   * (docs/PROTOCOL.md §2.7.3). 60 to MAX_FRESHNESS_LIFETIME_S; the TUF timestamp lives as long.
   */
  readonly freshnessLifetimeS: number;
  /** A request head must arrive within this after the connection opens or the last answer. */
  readonly headersTimeoutMs: number;
  /** The whole request, head and body, must arrive within this (a body trickle is closed). */
  readonly requestTimeoutMs: number;
  /** A kept-alive connection with no request in flight is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** A socket with no bytes in either direction for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Open connections at most; beyond it an idle one is evicted or the new one refused. */
  readonly maxConnections: number;
  /** File descriptors kept free for the process's own files (the cap shrinks to leave them). */
  readonly fdReserve: number;
  /**
   * One client address's share of `maxConnections` (lowered in proportion with it): at the cap,
   * room is taken first from an address over its share, and an address at its share makes
   * room only among its own sockets (or is refused 503). Half the cap: no address holds the
   * whole budget once it is contested, and no QA suite comes near it.
   */
  readonly maxConnectionsPerAddress: number;
  /**
   * Requests per minute and client address on the limited routes (mint; token, revocation and
   * authentication failures); the whole minute may come as one burst. 0 turns the limit off.
   */
  readonly rateLimitPerMinute: number;
}

export { MAX_FRESHNESS_LIFETIME_S } from '../updates/tuf/tuf-layout.js';

export const DEFAULT_OPTIONS: ServerOptions = {
  port: 0,
  host: '127.0.0.1',
  dev: false,
  config: undefined,
  onIssueTokens: undefined,
  dataDir: undefined,
  seed: undefined,
  nodeKeyFile: undefined,
  simulate: true,
  simulateMachines: 1000,
  qaClientSecret: undefined,
  clientsFile: undefined,
  issuer: undefined,
  logLevel: 'info',
  maxBodyBytes: 16 * 1024,
  freshnessLifetimeS: 24 * 3600,
  // docs/SERVER.md §Limits: what nginx and Go's net/http do, loose enough for any QA suite.
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  maxConnections: 1_000,
  fdReserve: 128,
  maxConnectionsPerAddress: 500,
  rateLimitPerMinute: 600,
};
