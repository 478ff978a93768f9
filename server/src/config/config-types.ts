/**
 * The shapes of a validated config file, section by section (docs/SERVER.md §Config file). Their
 * own file: the section checkers (config-sections.ts) and the whole-file check (server-config.ts)
 * both name them.
 */
import type { Claims } from '../oauth/tokens/claims.js';
import type { ClientRegistration } from '../oauth/clients.js';

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
