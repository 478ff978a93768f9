/**
 * Reads a config (docs/SERVER.md §Config file): a JSON file's path or the object itself,
 * validated (server-config.ts), then checked against the file system: every release folder is
 * a directory and a node key file exists, so a typo fails at start with the field's JSON path
 * rather than later (or, for the node key, by silently making a new one).
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { readRegularFile } from '../platform/regular-file.js';
import { ConfigError, validateConfig, type ServerConfig } from './server-config.js';

/** A validated config and where it came from (for messages). */
export interface LoadedConfig {
  readonly config: ServerConfig;
  /** The file's path, or `config` for an object given in-process. */
  readonly source: string;
}

export const NO_CONFIG: LoadedConfig = { config: {}, source: 'config' };

/** A config file's size limit (docs/SERVER.md §Config file). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Loads and validates; throws ConfigError (CONFIG_INVALID) naming the first bad field. */
export async function loadConfig(input: ServerConfig | string | undefined): Promise<LoadedConfig> {
  if (input === undefined) return NO_CONFIG;
  let value: unknown = input;
  let source = 'config';
  let baseDir = process.cwd();
  if (typeof input === 'string') {
    source = input;
    baseDir = dirname(resolve(input));
    value = parseConfigText(await readConfigFile(input), input);
  }
  const config = validateConfig(value, source, baseDir);
  for (const [i, release] of (config.releases ?? []).entries()) {
    const info = await stat(release.folder).catch(() => undefined);
    if (info === undefined || !info.isDirectory()) {
      throw new ConfigError(
        `${source}: $.releases[${i}].folder: ${release.folder} is not a directory`,
      );
    }
  }
  if (config.node_key !== undefined && 'file' in config.node_key) {
    const info = await stat(config.node_key.file).catch(() => undefined);
    if (info === undefined || !info.isFile()) {
      throw new ConfigError(`${source}: $.node_key.file: ${config.node_key.file} does not exist`);
    }
  }
  return { config, source };
}

/** The file's text, or CONFIG_INVALID with the reason (missing, not a file, too large). */
async function readConfigFile(path: string): Promise<string> {
  try {
    return await readRegularFile(path, MAX_CONFIG_BYTES);
  } catch (cause) {
    const why = (cause as { code?: unknown }).code;
    const reason =
      why === 'EFBIG'
        ? `it is larger than ${MAX_CONFIG_BYTES} bytes (1 MiB), the most a config may have`
        : why === 'ENOENT'
          ? 'no such file'
          : why === 'ENOTREG'
            ? 'not a regular file'
            : cause instanceof Error
              ? cause.message
              : String(cause);
    throw new ConfigError(
      `${path}: cannot read the config file (${typeof why === 'string' ? `${why}: ` : ''}${reason})`,
      { cause },
    );
  }
}

/** Parses the JSON; a leading UTF-8 byte order mark (as some editors write) is accepted. */
export function parseConfigText(text: string, path: string): unknown {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (cause) {
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new ConfigError(`${path}: not JSON (${why})`, { cause });
  }
}
