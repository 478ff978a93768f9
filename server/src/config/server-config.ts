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
import type { ServerConfig } from './config-types.js';

export { ConfigError } from './config-checker.js';
export { CONFIG_LIMITS } from './config-sections.js';
export type {
  ChainConfig,
  LifetimesConfig,
  MachineConfig,
  NodeKeyConfig,
  OAuthConfig,
  ReleaseConfig,
  ServerConfig,
} from './config-types.js';

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
