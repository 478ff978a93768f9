/**
 * The CLI's commands and flags as node's parseArgs reads them (args.ts), kept apart so the
 * launcher (launcher.ts) reads a command line exactly as the run will, without loading the
 * rest of the CLI (early-connect.ts).
 */
import type { Limits } from '#core/limits.js';

export const COMMANDS = ['check', 'update', 'status', 'rollback', 'verify', 'confirm'] as const;
export type Command = (typeof COMMANDS)[number];

/** Flag name -> limit it sets. */
export const LIMIT_FLAGS = {
  parallel: 'parallel',
  retries: 'retries',
  'stall-timeout-ms': 'stallTimeoutMs',
  'min-bytes-per-s': 'minBytesPerS',
  'max-bytes-per-s': 'maxBytesPerS',
  'max-manifest-bytes': 'maxManifestBytes',
  'max-artifact-bytes': 'maxArtifactBytes',
  'max-artifacts': 'maxArtifacts',
  'connect-timeout-ms': 'connectTimeoutMs',
} as const satisfies Record<string, keyof Limits>;

export const CLI_OPTIONS = {
  'base-url': { type: 'string' },
  'machine-key': { type: 'string' },
  pubkey: { type: 'string', multiple: true },
  'trusted-root': { type: 'string' },
  'max-timestamp-lifetime-s': { type: 'string' },
  dir: { type: 'string' },
  json: { type: 'boolean' },
  'machine-key-file': { type: 'string' },
  'require-nonce': { type: 'boolean' },
  'no-proxy': { type: 'boolean' },
  swap: { type: 'string' },
  health: { type: 'string' },
  'health-cmd': { type: 'string' },
  'health-timeout-s': { type: 'string' },
  ...Object.fromEntries(Object.keys(LIMIT_FLAGS).map((k) => [k, { type: 'string' as const }])),
} as const;
