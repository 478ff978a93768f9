/**
 * The config file (`--config FILE`, `startServer({ config })`, docs/SERVER.md §Config file): a
 * deterministic set-up for QA runs. OAuth clients and extra claims, fixed machine keys with
 * their subscriptions, the node key, releases published from folders, chain machines, and the
 * freshness and token lifetimes. Validated strictly and in full before the server starts: an
 * unknown field, a wrong type or an out-of-range value is a ConfigError (CONFIG_INVALID) whose
 * message names the source and the JSON path of the first bad field, e.g.
 * `qa.json: $.oauth.clients[1].client_secret: client_secret must be at least 32 bytes`.
 * Pure: paths are resolved against `baseDir` but not read here (load-config.ts does that).
 */
import { Checker } from './config-checker.js';
import { chain, lifetimes, machines, nodeKey, oauth, releases } from './config-sections.js';
import type { Claims } from '../oauth/tokens/claims.js';
import type { ClientRegistration } from '../oauth/clients.js';

export { ConfigError } from './config-checker.js';
export { CONFIG_LIMITS } from './config-sections.js';

/** The node key: its 64-hex secret seed (tests only), or a key file. */
export type NodeKeyConfig = { readonly secret_key_hex: string } | { readonly file: string };

/** Lifetimes in seconds. */
export interface LifetimesConfig {
  /** Freshness statements (docs/PROTOCOL.md §2.7.3), 60 to 31,536,000; as --freshness-lifetime-s. */
  readonly freshness_s?: number;
  /** Authorization codes, 1 to 600 (RFC 6749 §4.1.2: at most 10 minutes). */
  readonly authorization_code_s?: number;
  readonly access_token_s?: number;
  readonly refresh_token_s?: number;
  readonly id_token_s?: number;
}

export interface OAuthConfig {
  /** Clients, registered after the defaults and --clients-file (same id: replaced). */
  readonly clients?: readonly ClientRegistration[];
  /** Extra ID-token and userinfo claims, per client then per subject (subject wins). */
  readonly claims?: {
    readonly clients?: Readonly<Record<string, Claims>>;
    readonly subjects?: Readonly<Record<string, Claims>>;
  };
  /** Without login_hint: true (default) shows the login page, false approves as demo-user. */
  readonly login_page?: boolean;
}

/** A machine key chosen in advance, so tests can hard-code it. */
export interface MachineConfig {
  /** `mk_` and 43 base64url characters (docs/PROTOCOL.md §3). */
  readonly machine_key: string;
  /** Default: `m_` and 16 base64url characters derived from the key. */
  readonly machine_id?: string;
  readonly label?: string;
  /** Default `active`. */
  readonly subscription?: 'active' | 'inactive';
  /** End of an active subscription, RFC 3339; default 30 days after start (or reset). */
  readonly expires_at?: string;
}

/** A release published from a folder at start (and after a reset). */
export interface ReleaseConfig {
  readonly version: string;
  readonly folder: string;
  readonly artifact_base_url?: string;
  readonly expires_in_s?: number;
}

export interface ChainConfig {
  /** The simulator; as --simulate. */
  readonly simulate?: boolean;
  /** As --simulate-machines. */
  readonly simulated_machines?: number;
  readonly machines?: readonly {
    readonly id: string;
    readonly name: string;
    readonly visibility: 'public' | 'private';
  }[];
}

/** The config file's JSON object. Every member is optional. */
export interface ServerConfig {
  /** Ignored: lets editors find a schema. */
  readonly $schema?: string;
  readonly node_key?: NodeKeyConfig;
  readonly lifetimes?: LifetimesConfig;
  readonly oauth?: OAuthConfig;
  readonly machines?: readonly MachineConfig[];
  readonly releases?: readonly ReleaseConfig[];
  readonly chain?: ChainConfig;
}

/**
 * Validates a config and returns a normalised copy: paths absolute (against `baseDir`), hex
 * lowercase, times as ISO strings. Throws ConfigError with the JSON path of the first problem.
 */
export function validateConfig(value: unknown, source: string, baseDir: string): ServerConfig {
  const c = new Checker(source);
  const top = c.object(value, '$', [
    '$schema',
    'node_key',
    'lifetimes',
    'oauth',
    'machines',
    'releases',
    'chain',
  ]);
  const out: { -readonly [K in keyof ServerConfig]: ServerConfig[K] } = {};
  if (top['$schema'] !== undefined) c.string(top['$schema'], '$.$schema');
  if (top['node_key'] !== undefined) out.node_key = nodeKey(c, top['node_key'], baseDir);
  if (top['lifetimes'] !== undefined) out.lifetimes = lifetimes(c, top['lifetimes']);
  if (top['oauth'] !== undefined) out.oauth = oauth(c, top['oauth']);
  if (top['machines'] !== undefined) out.machines = machines(c, top['machines']);
  if (top['releases'] !== undefined) out.releases = releases(c, top['releases'], baseDir);
  if (top['chain'] !== undefined) out.chain = chain(c, top['chain']);
  return out;
}
