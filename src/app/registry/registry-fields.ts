/**
 * Checks of the two fields that name a registry: its base URL and a pinned node_pubkey. Pure;
 * each returns the problem in plain words (shown next to the field in the settings screen) or
 * null. Used by the shipped registry.json, the settings screen and the registry choice alike,
 * so all three accept and refuse exactly the same values (docs/DESKTOP.md "Shipping a registry").
 */

/** Hosts plain http may name: the machine key never leaves this machine. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Longest base URL accepted (the settings schema allows the same). */
export const MAX_REGISTRY_URL_LENGTH = 2048;

/** At most this many pinned keys (the settings schema allows the same). */
export const MAX_PINNED_KEYS = 16;

const PUBKEY_HEX = /^[0-9a-f]{64}$/;

/** The problem with a registry address, or null when it can be used. */
export function registryUrlProblem(text: string): string | null {
  const value = text.trim();
  if (value === '') return 'Enter the registry address, for example https://updates.example.com.';
  if (value.length > MAX_REGISTRY_URL_LENGTH) return 'This address is too long.';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'This is not a web address. It starts with https://.';
  }
  // The machine key travels in every request: plain http only where it never leaves this
  // machine (signatures protect the updates, not the key's secrecy). docs/SECURITY.md §1.
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  if (url.protocol !== 'https:') {
    return 'The address must start with https:// (plain http only on this computer).';
  }
  if (url.username !== '' || url.password !== '') {
    return 'Leave the user name and password out of the address; the machine key signs you in.';
  }
  if (url.search !== '' || url.hash !== '') return 'Leave out the part after ? or #.';
  return null;
}

/** The problem with one pinned key, or null when it is 64 lowercase hex characters. */
export function pinnedKeyProblem(text: string): string | null {
  const value = text.trim();
  if (value === '') return 'Enter the registry’s public key.';
  // Upper case is accepted and stored lower case (normalizePinnedKey): same key, same bytes.
  if (PUBKEY_HEX.test(value.toLowerCase())) return null;
  if (!/^[0-9a-fA-F]*$/.test(value)) {
    return 'A public key has only the digits 0-9 and the letters a-f.';
  }
  return `A public key has 64 characters; this one has ${value.length}.`;
}

/** The key as stored and compared: trimmed, lowercase. Call after pinnedKeyProblem() is null. */
export function normalizePinnedKey(text: string): string {
  return text.trim().toLowerCase();
}

/** The problem with a list of keys (none, too many, one bad, a repeat), or null. */
export function pinnedKeysProblem(keys: readonly string[]): string | null {
  if (keys.length === 0) return 'Pin at least one public key: without one no update is trusted.';
  if (keys.length > MAX_PINNED_KEYS) return `Pin at most ${MAX_PINNED_KEYS} keys.`;
  const seen = new Set<string>();
  for (const [index, key] of keys.entries()) {
    const problem = pinnedKeyProblem(key);
    if (problem !== null) return keys.length === 1 ? problem : `Key ${index + 1}: ${problem}`;
    const normal = normalizePinnedKey(key);
    if (seen.has(normal)) return `Key ${index + 1} is listed twice.`;
    seen.add(normal);
  }
  return null;
}
