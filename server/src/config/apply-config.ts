/**
 * Puts a loaded config into effect (docs/SERVER.md §Config file):
 *   - `optionsWithConfig`: the config's values for settings that also have a flag (node key
 *     file, freshness lifetime, simulator), under the options given explicitly, which win;
 *   - `placeNodeKey`: a node key given by its secret is written to DIR/node-key.json before the
 *     key chain is opened (a data directory that already holds another one is refused);
 *   - `seedState`: fixed machine keys, releases and chain machines, at start and again after
 *     every reset, so a reset returns to the configured state.
 * The OAuth part (clients, claims, login page, lifetimes) is read by the OAuth module itself.
 */
import { createHash } from 'node:crypto';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import semver from 'semver';
import { writeJsonAtomic } from '#shared/atomic-file.js';
import { publicKeyOf, pubkeyToHex } from '#protocol';
import type { Modules } from '../compose/modules.js';
import type { ServerOptions } from '../compose/options.js';
import { isServerError } from '../server-error.js';
import { createRandom } from '../platform/random.js';
import { loadNodeKey, NODE_KEY_FILE } from '../updates/keys/node-key.js';
import { listFolder } from '../updates/publish/publish-folder.js';
import type { LoadedConfig } from './load-config.js';
import { ConfigError, type ServerConfig } from './server-config.js';

/** The options to build with: the config's values where no explicit option is given. */
export function optionsWithConfig(
  partial: Partial<ServerOptions>,
  config: ServerConfig,
): Partial<ServerOptions> {
  const out: { -readonly [K in keyof ServerOptions]?: ServerOptions[K] } = {};
  const freshness = config.lifetimes?.freshness_s;
  if (freshness !== undefined) out.freshnessLifetimeS = freshness;
  if (config.node_key !== undefined && 'file' in config.node_key) {
    out.nodeKeyFile = config.node_key.file;
  }
  if (config.chain?.simulate !== undefined) out.simulate = config.chain.simulate;
  if (config.chain?.simulated_machines !== undefined) {
    out.simulateMachines = config.chain.simulated_machines;
  }
  for (const [key, value] of Object.entries(partial)) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/**
 * Writes a node key given by its secret to DIR/node-key.json, unless a key file is given
 * explicitly (it wins). An existing DIR/node-key.json must hold the same key.
 */
export async function placeNodeKey(
  loaded: LoadedConfig,
  dataDir: string,
  nodeKeyFile: string | undefined,
): Promise<void> {
  const key = loaded.config.node_key;
  if (key === undefined || !('secret_key_hex' in key) || nodeKeyFile !== undefined) return;
  const path = join(dataDir, NODE_KEY_FILE);
  const publicKey = pubkeyToHex(
    publicKeyOf(new Uint8Array(Buffer.from(key.secret_key_hex, 'hex'))),
  );
  if (
    await access(path).then(
      () => true,
      () => false,
    )
  ) {
    const held = await loadNodeKey(dataDir, path, createRandom(undefined));
    if (held.publicKeyHex === publicKey) return;
    throw new ConfigError(
      `${loaded.source}: $.node_key.secret_key_hex: ${path} already holds another node key`,
    );
  }
  await writeJsonAtomic(
    path,
    { secret_key_hex: key.secret_key_hex, public_key_hex: publicKey },
    0o600,
  );
}

/** `m_` and 16 base64url characters of the key's SHA-256: stable across runs. */
export function defaultMachineId(machineKey: string): string {
  return `m_${createHash('sha256').update(machineKey).digest('base64url').slice(0, 16)}`;
}

/**
 * Adds the configured machine keys, releases (those above the highest version already in the
 * data directory, in order) and chain machines. Called at start and after every reset.
 */
export async function seedState(loaded: LoadedConfig, modules: Modules): Promise<void> {
  const { config, source } = loaded;
  for (const m of config.machines ?? []) {
    await modules.updates.api.putMachineKey({
      machineKey: m.machine_key,
      machineId: m.machine_id ?? defaultMachineId(m.machine_key),
      label: m.label ?? null,
      status: m.subscription ?? 'active',
      expiresAt: m.expires_at,
    });
  }
  for (const [i, r] of (config.releases ?? []).entries()) {
    const highest = modules.updates.api.highestVersion();
    if (highest !== undefined && !semver.gt(r.version, highest)) continue;
    try {
      await modules.updates.api.publish({
        registry_version: r.version,
        artifacts: await listFolder(r.folder),
        ...(r.artifact_base_url === undefined ? {} : { artifact_base_url: r.artifact_base_url }),
        ...(r.expires_in_s === undefined ? {} : { expires_in_s: r.expires_in_s }),
      });
    } catch (cause) {
      const code = isServerError(cause) ? `${cause.code}: ` : '';
      const why = cause instanceof Error ? cause.message : String(cause);
      throw new ConfigError(
        `${source}: $.releases[${i}]: could not publish ${r.version} (${code}${why})`,
        { cause },
      );
    }
  }
  for (const machine of config.chain?.machines ?? []) modules.chain.api.addMachine(machine);
}
