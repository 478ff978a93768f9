/**
 * The config's sections, each validated into its normalised form (server-config.ts,
 * docs/SERVER.md §Config file). Every refusal names the JSON path of the bad value.
 */
import { resolve } from 'node:path';
import semver from 'semver';
import { isStrictSemver } from '#protocol';
import { machineIdProblem, machineNameProblem } from '../chain/machine-registry.js';
import { claimsProblem, type Claims } from '../oauth/tokens/claims.js';
import {
  MIN_SECRET_BYTES,
  REGISTRATION_FIELDS,
  toClient,
  type ClientRegistration,
} from '../oauth/clients.js';
import { MAX_FRESHNESS_LIFETIME_S } from '../updates/tuf/tuf-layout.js';
import { SUBJECT } from '../oauth/login/code-request.js';
import { MACHINE_KEY } from '../updates/bearer.js';
import { MAX_EXPIRES_IN_S } from '../updates/format-one-envelope.js';
import { MAX_LABEL_CHARS } from '../updates/machine-keys.js';
import { member, type Checker } from './config-checker.js';
import type {
  ChainConfig,
  LifetimesConfig,
  MachineConfig,
  NodeKeyConfig,
  OAuthConfig,
  ReleaseConfig,
} from './config-types.js';

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

export function nodeKey(c: Checker, value: unknown, baseDir: string): NodeKeyConfig {
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

export function lifetimes(c: Checker, value: unknown): LifetimesConfig {
  const bounds: Record<keyof LifetimesConfig, readonly [number, number]> = {
    freshness_s: [60, MAX_FRESHNESS_LIFETIME_S],
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

export function oauth(c: Checker, value: unknown): OAuthConfig {
  const o = c.object(value, '$.oauth', ['clients', 'claims', 'login_page']);
  const out: { -readonly [K in keyof OAuthConfig]: OAuthConfig[K] } = {};
  if (o['clients'] !== undefined) {
    const seen = new Set<string>();
    const list = c.list(o['clients'], '$.oauth.clients', CONFIG_LIMITS.clients);
    out.clients = list.map((entry, i) => oauthClient(c, entry, `$.oauth.clients[${i}]`, seen));
  }
  if (o['claims'] !== undefined) {
    const claims = c.object(o['claims'], '$.oauth.claims', ['clients', 'subjects']);
    const byClient = claimSets(c, claims, 'clients');
    const bySubject = claimSets(c, claims, 'subjects');
    out.claims = {
      ...(byClient === undefined ? {} : { clients: byClient }),
      ...(bySubject === undefined ? {} : { subjects: bySubject }),
    };
  }
  if (o['login_page'] !== undefined)
    out.login_page = c.boolean(o['login_page'], '$.oauth.login_page');
  return out;
}

/** One entry of `$.oauth.clients`, checked field by field and then as a registration. */
function oauthClient(
  c: Checker,
  entry: unknown,
  path: string,
  seen: Set<string>,
): ClientRegistration {
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
}

/** `$.oauth.claims.clients` or `.subjects`: claim sets by client id or subject. */
function claimSets(
  c: Checker,
  claims: Record<string, unknown>,
  key: 'clients' | 'subjects',
): Record<string, Claims> | undefined {
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
}

export function machines(c: Checker, value: unknown): MachineConfig[] {
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

export function releases(c: Checker, value: unknown, baseDir: string): ReleaseConfig[] {
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

export function chain(c: Checker, value: unknown): ChainConfig {
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
