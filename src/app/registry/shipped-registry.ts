/**
 * The registry a distributor ships beside the app: `resources/registry.json` (next to
 * pinned-key.txt, outside app.asar) naming the base URL and the pinned keys. When present it
 * replaces the embedded demo registry; when absent the demo runs as before. A file that is
 * present but wrong refuses with CONFIG_INVALID: a broken distributor file never silently falls
 * back to the demo (docs/DESKTOP.md "Shipping a registry").
 *
 *   { "base_url": "https://updates.example.com", "pinned_keys": ["<64 lowercase hex>"] }
 *   { "base_url": "https://updates.example.com", "trusted_root": "root.json" }
 *
 * `trusted_root` names a TUF root file beside it in resources/ (a plain file name): trust then
 * starts from that root (docs/PROTOCOL.md §TUF repository, "Client") and `pinned_keys` may be
 * left out.
 */
import { UpdateError } from '#core/errors.js';
import { normalizePinnedKey, pinnedKeysProblem, registryUrlProblem } from './registry-fields.js';

/** File name inside the resources directory. */
export const SHIPPED_REGISTRY_FILE = 'registry.json';

/** A registry description is a few hundred bytes; anything far larger is not one. */
export const MAX_SHIPPED_REGISTRY_BYTES = 16 * 1024;

export interface ShippedRegistry {
  readonly baseUrl: string;
  readonly pinnedKeys: readonly string[];
  /** A file name inside resources/ holding the TUF root trust starts from. */
  readonly trustedRoot?: string;
}

/** A plain file name: no folder, no `..`, nothing a path could be built from. */
const ROOT_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.json$/;

const FIELDS = new Set(['base_url', 'pinned_keys', 'trusted_root']);

function refuse(reason: string): UpdateError {
  return new UpdateError('CONFIG_INVALID', `The shipped registry.json is invalid: ${reason}`);
}

/** Parses and checks the file's text; throws CONFIG_INVALID with the reason in plain words. */
export function parseShippedRegistry(text: string): ShippedRegistry {
  if (text.length > MAX_SHIPPED_REGISTRY_BYTES) throw refuse('it is too large.');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw refuse('it is not JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw refuse('it must be one JSON object.');
  }
  const record = body as Record<string, unknown>;
  const unknownKeys = Object.keys(record).filter((k) => !FIELDS.has(k));
  // A misspelt field would otherwise be ignored and its intent lost.
  if (unknownKeys.length > 0) throw refuse(`unknown field ${JSON.stringify(unknownKeys[0])}.`);
  const baseUrl = record['base_url'];
  if (typeof baseUrl !== 'string') throw refuse('"base_url" must be a string.');
  const urlProblem = registryUrlProblem(baseUrl);
  if (urlProblem !== null) throw refuse(`base_url: ${urlProblem}`);
  const root = record['trusted_root'];
  if (root !== undefined && (typeof root !== 'string' || !ROOT_FILE_NAME.test(root))) {
    throw refuse('"trusted_root" must be a file name ending in .json, beside registry.json.');
  }
  const keys = record['pinned_keys'] ?? (root === undefined ? undefined : []);
  if (!Array.isArray(keys) || !keys.every((k): k is string => typeof k === 'string')) {
    throw refuse('"pinned_keys" must be a list of strings.');
  }
  const keyProblem = keys.length === 0 && root !== undefined ? null : pinnedKeysProblem(keys);
  if (keyProblem !== null) throw refuse(`pinned_keys: ${keyProblem}`);
  const pinnedKeys = keys.map(normalizePinnedKey);
  return {
    baseUrl: baseUrl.trim(),
    pinnedKeys,
    ...(root === undefined ? {} : { trustedRoot: root }),
  };
}

/**
 * Reads the shipped registry through `readText` (which returns null when the file does not
 * exist); null means "no shipped registry", anything else is the parsed file or a refusal.
 */
export async function readShippedRegistry(
  readText: () => Promise<string | null>,
): Promise<ShippedRegistry | null> {
  const text = await readText();
  return text === null ? null : parseShippedRegistry(text);
}
