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
import { resolve } from 'node:path';
import semver from 'semver';
import { isStrictSemver } from '../../../src/protocol/index.js';
import { machineIdProblem, machineNameProblem } from '../chain/machine-registry.js';
import { claimsProblem, type Claims } from '../oauth/claims.js';
import {
  MIN_SECRET_BYTES,
  REGISTRATION_FIELDS,
  toClient,
  type ClientRegistration,
} from '../oauth/clients.js';
import { SUBJECT } from '../oauth/code-request.js';
import { errorClass } from '../server-error.js';
import { MACHINE_KEY } from '../updates/bearer.js';
import { MAX_EXPIRES_IN_S } from '../updates/legacy-envelope.js';
import { MAX_LABEL_CHARS } from '../updates/machine-keys.js';

/** A config that cannot be used; the server does not start. */
export const ConfigError = errorClass('ConfigError', 'CONFIG_INVALID');
export type ConfigError = InstanceType<typeof ConfigError>;

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

/** Upper bounds of the config's lists (the stores have their own, larger ones). */
export const CONFIG_LIMITS = {
  clients: 1000,
  claimSets: 10_000,
  machines: 10_000,
  releases: 100,
  chainMachines: 100_000,
} as const;

const HEX64 = /^[0-9a-fA-F]{64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
// eslint-disable-next-line no-control-regex -- control characters are what a label may not hold
const CONTROL = /[\u0000-\u001f\u007f]/;

type Obj = Record<string, unknown>;

/** Validation with the JSON path of the value at hand in every refusal. */
class Checker {
  constructor(readonly source: string) {}

  fail(path: string, message: string): never {
    throw new ConfigError(`${this.source}: ${path}: ${message}`);
  }

  object(value: unknown, path: string, allowed: readonly string[]): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(path, 'must be a JSON object');
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) {
        this.fail(
          `${path}${member(key)}`,
          `unknown field (allowed: ${allowed.filter((k) => k !== '$schema').join(', ')})`,
        );
      }
    }
    return value as Obj;
  }

  map(value: unknown, path: string, max: number): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(path, 'must be a JSON object');
    }
    if (Object.keys(value).length > max) this.fail(path, `at most ${max} entries`);
    return value as Obj;
  }

  list(value: unknown, path: string, max: number): unknown[] {
    if (!Array.isArray(value)) this.fail(path, 'must be an array');
    if (value.length > max) this.fail(path, `at most ${max} entries`);
    return value;
  }

  string(value: unknown, path: string): string {
    if (typeof value !== 'string' || value.length === 0)
      this.fail(path, 'must be a non-empty string');
    return value;
  }

  boolean(value: unknown, path: string): boolean {
    if (typeof value !== 'boolean') this.fail(path, 'must be true or false');
    return value;
  }

  int(value: unknown, path: string, min: number, max: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(path, `must be an integer from ${min} to ${max}`);
    }
    return value;
  }
}

/** `.name` for identifiers, `["odd name"]` otherwise. */
function member(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
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

function nodeKey(c: Checker, value: unknown, baseDir: string): NodeKeyConfig {
  const o = c.object(value, '$.node_key', ['secret_key_hex', 'file']);
  const hex = o['secret_key_hex'];
  const file = o['file'];
  if ((hex === undefined) === (file === undefined)) {
    c.fail('$.node_key', 'give exactly one of secret_key_hex and file');
  }
  if (file !== undefined) return { file: resolve(baseDir, c.string(file, '$.node_key.file')) };
  if (typeof hex !== 'string' || !HEX64.test(hex)) {
    c.fail('$.node_key.secret_key_hex', 'must be the 64-hex Ed25519 secret seed');
  }
  return { secret_key_hex: hex.toLowerCase() };
}

function lifetimes(c: Checker, value: unknown): LifetimesConfig {
  const bounds: Record<keyof LifetimesConfig, readonly [number, number]> = {
    freshness_s: [60, 31_536_000],
    authorization_code_s: [1, 600],
    access_token_s: [1, 31_536_000],
    refresh_token_s: [1, 31_536_000],
    id_token_s: [1, 31_536_000],
  };
  const o = c.object(value, '$.lifetimes', Object.keys(bounds));
  const out: Record<string, number> = {};
  for (const [key, [min, max]] of Object.entries(bounds)) {
    if (o[key] !== undefined) out[key] = c.int(o[key], `$.lifetimes.${key}`, min, max);
  }
  return out;
}

function oauth(c: Checker, value: unknown): OAuthConfig {
  const o = c.object(value, '$.oauth', ['clients', 'claims', 'login_page']);
  const out: { -readonly [K in keyof OAuthConfig]: OAuthConfig[K] } = {};
  if (o['clients'] !== undefined) {
    const seen = new Set<string>();
    out.clients = c.list(o['clients'], '$.oauth.clients', CONFIG_LIMITS.clients).map((entry, i) => {
      const path = `$.oauth.clients[${i}]`;
      const reg = c.object(entry, path, REGISTRATION_FIELDS);
      const id = c.string(reg['client_id'], `${path}.client_id`);
      if (seen.has(id)) c.fail(`${path}.client_id`, `client ${id} is listed twice`);
      seen.add(id);
      for (const list of [
        'redirect_uris',
        'loopback_redirect_paths',
        'scopes',
        'post_logout_redirect_uris',
      ]) {
        if (reg[list] === undefined) continue;
        c.list(reg[list], `${path}.${list}`, 100).forEach((v, j) => {
          if (typeof v !== 'string') c.fail(`${path}.${list}[${j}]`, 'must be a string');
        });
      }
      if (reg['client_secret'] !== undefined) {
        const secret = c.string(reg['client_secret'], `${path}.client_secret`);
        if (Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES) {
          c.fail(
            `${path}.client_secret`,
            `must be at least ${MIN_SECRET_BYTES} bytes (HS256 key, RFC 7518 §3.2)`,
          );
        }
      }
      if (reg['require_redirect_uri_at_token'] !== undefined) {
        c.boolean(reg['require_redirect_uri_at_token'], `${path}.require_redirect_uri_at_token`);
      }
      try {
        toClient(reg as unknown as ClientRegistration);
      } catch (error) {
        c.fail(path, error instanceof Error ? error.message : String(error));
      }
      return reg as unknown as ClientRegistration;
    });
  }
  if (o['claims'] !== undefined) {
    const claims = c.object(o['claims'], '$.oauth.claims', ['clients', 'subjects']);
    const sets = (key: 'clients' | 'subjects'): Record<string, Claims> | undefined => {
      if (claims[key] === undefined) return undefined;
      const path = `$.oauth.claims.${key}`;
      const map = c.map(claims[key], path, CONFIG_LIMITS.claimSets);
      const result: Record<string, Claims> = Object.create(null) as Record<string, Claims>;
      for (const [name, set] of Object.entries(map)) {
        if (key === 'subjects' && !SUBJECT.test(name)) {
          c.fail(`${path}${member(name)}`, 'a subject is 1-255 visible ASCII characters');
        }
        const problem = claimsProblem(set);
        if (problem !== undefined) c.fail(`${path}${member(name)}`, problem);
        result[name] = set as Claims;
      }
      return result;
    };
    const byClient = sets('clients');
    const bySubject = sets('subjects');
    out.claims = {
      ...(byClient === undefined ? {} : { clients: byClient }),
      ...(bySubject === undefined ? {} : { subjects: bySubject }),
    };
  }
  if (o['login_page'] !== undefined)
    out.login_page = c.boolean(o['login_page'], '$.oauth.login_page');
  return out;
}

function machines(c: Checker, value: unknown): MachineConfig[] {
  const keys = new Set<string>();
  const ids = new Set<string>();
  return c.list(value, '$.machines', CONFIG_LIMITS.machines).map((entry, i) => {
    const path = `$.machines[${i}]`;
    const o = c.object(entry, path, [
      'machine_key',
      'machine_id',
      'label',
      'subscription',
      'expires_at',
    ]);
    const key = o['machine_key'];
    if (typeof key !== 'string' || !MACHINE_KEY.test(key)) {
      c.fail(`${path}.machine_key`, 'must be mk_ and 43 base64url characters (256 bits)');
    }
    if (keys.has(key)) c.fail(`${path}.machine_key`, 'this key is listed twice');
    keys.add(key);
    const out: { -readonly [K in keyof MachineConfig]: MachineConfig[K] } = { machine_key: key };
    if (o['machine_id'] !== undefined) {
      const id = c.string(o['machine_id'], `${path}.machine_id`);
      const problem = machineIdProblem(id);
      if (problem !== undefined)
        c.fail(`${path}.machine_id`, problem.replace(/^id /, 'machine_id '));
      if (ids.has(id)) c.fail(`${path}.machine_id`, `machine ${id} is listed twice`);
      ids.add(id);
      out.machine_id = id;
    }
    if (o['label'] !== undefined) {
      const label = c.string(o['label'], `${path}.label`);
      if (label.length > MAX_LABEL_CHARS || CONTROL.test(label)) {
        c.fail(`${path}.label`, `at most ${MAX_LABEL_CHARS} characters, no control characters`);
      }
      out.label = label;
    }
    const status = o['subscription'] ?? 'active';
    if (status !== 'active' && status !== 'inactive') {
      c.fail(`${path}.subscription`, 'must be "active" or "inactive"');
    }
    out.subscription = status;
    if (o['expires_at'] !== undefined) {
      const at = o['expires_at'];
      if (status !== 'active') c.fail(`${path}.expires_at`, 'only an active subscription expires');
      if (typeof at !== 'string' || !RFC3339.test(at) || Number.isNaN(Date.parse(at))) {
        c.fail(`${path}.expires_at`, 'must be an RFC 3339 time such as 2030-01-01T00:00:00Z');
      }
      out.expires_at = new Date(Date.parse(at)).toISOString();
    }
    return out;
  });
}

function releases(c: Checker, value: unknown, baseDir: string): ReleaseConfig[] {
  let previous: string | undefined;
  return c.list(value, '$.releases', CONFIG_LIMITS.releases).map((entry, i) => {
    const path = `$.releases[${i}]`;
    const o = c.object(entry, path, ['version', 'folder', 'artifact_base_url', 'expires_in_s']);
    const version = c.string(o['version'], `${path}.version`);
    if (!isStrictSemver(version))
      c.fail(`${path}.version`, 'must be a strict semver such as 1.2.3');
    if (!semver.gt(version, '0.0.0')) c.fail(`${path}.version`, 'must be above 0.0.0');
    if (previous !== undefined && !semver.gt(version, previous)) {
      c.fail(`${path}.version`, `must be above the release before it (${previous})`);
    }
    previous = version;
    const out: { -readonly [K in keyof ReleaseConfig]: ReleaseConfig[K] } = {
      version,
      folder: resolve(baseDir, c.string(o['folder'], `${path}.folder`)),
    };
    if (o['artifact_base_url'] !== undefined) {
      const url = c.string(o['artifact_base_url'], `${path}.artifact_base_url`);
      if (!/^https?:\/\//.test(url) || !URL.canParse(url)) {
        c.fail(`${path}.artifact_base_url`, 'must be an absolute http(s) URL');
      }
      out.artifact_base_url = url;
    }
    if (o['expires_in_s'] !== undefined) {
      out.expires_in_s = c.int(o['expires_in_s'], `${path}.expires_in_s`, 1, MAX_EXPIRES_IN_S);
    }
    return out;
  });
}

function chain(c: Checker, value: unknown): ChainConfig {
  const o = c.object(value, '$.chain', ['simulate', 'simulated_machines', 'machines']);
  const out: { -readonly [K in keyof ChainConfig]: ChainConfig[K] } = {};
  if (o['simulate'] !== undefined) out.simulate = c.boolean(o['simulate'], '$.chain.simulate');
  if (o['simulated_machines'] !== undefined) {
    out.simulated_machines = c.int(
      o['simulated_machines'],
      '$.chain.simulated_machines',
      0,
      1_000_000,
    );
  }
  if (o['machines'] !== undefined) {
    const ids = new Set<string>();
    out.machines = c
      .list(o['machines'], '$.chain.machines', CONFIG_LIMITS.chainMachines)
      .map((entry, i) => {
        const path = `$.chain.machines[${i}]`;
        const m = c.object(entry, path, ['id', 'name', 'visibility']);
        const idProblem = machineIdProblem(m['id']);
        if (idProblem !== undefined) c.fail(`${path}.id`, idProblem);
        const id = m['id'] as string;
        if (ids.has(id)) c.fail(`${path}.id`, `machine ${id} is listed twice`);
        ids.add(id);
        const nameProblem = machineNameProblem(m['name']);
        if (nameProblem !== undefined) c.fail(`${path}.name`, nameProblem);
        const visibility = m['visibility'];
        if (visibility !== 'public' && visibility !== 'private') {
          c.fail(`${path}.visibility`, 'must be "public" or "private"');
        }
        return { id, name: m['name'] as string, visibility };
      });
  }
  return out;
}
