/**
 * Keys a newer trusted root dropped from a top-level role (docs/PROTOCOL.md §TUF repository,
 * "Client", KEY_RETIRED). They only choose a refusal's name: a valid signature by one, when
 * the threshold is not met, is KEY_RETIRED rather than THRESHOLD_NOT_MET. Such a signature
 * never counts. The list is kept beside root.json (MetadataStore `writeRetiredKeys`) so a
 * later run names the key too; being advisory, a list that is missing or unreadable is an
 * empty one, and a key the trusted root lists for a role is never retired for that role.
 */
import {
  TOP_LEVEL_ROLES,
  isJsonObject,
  parseStrictJson,
  type JsonValue,
  type Root,
  type TopLevelRole,
  type TufKey,
} from '#protocol/tuf/index.js';

/** Per top-level role, keyid -> key of the keys a newer trusted root dropped from it. */
export type RetiredKeys = ReadonlyMap<TopLevelRole, ReadonlyMap<string, TufKey>>;

/** `retired` plus the keys `after` drops from a role `before` gave them, less re-listed ones. */
export function retiredAfter(retired: RetiredKeys, before: Root, after: Root): RetiredKeys {
  const next = new Map<TopLevelRole, ReadonlyMap<string, TufKey>>();
  for (const role of TOP_LEVEL_ROLES) {
    const keys = new Map(retired.get(role));
    const kept = after.roles[role].keyids;
    for (const keyid of kept) keys.delete(keyid);
    for (const keyid of before.roles[role].keyids) {
      const key = before.keys.get(keyid);
      if (key !== undefined && !kept.includes(keyid)) keys.set(keyid, key);
    }
    next.set(role, keys);
  }
  return next;
}

/** `{"<role>": {"<keyid>": {"keytype", "scheme", "keyval": {"public"}}}}` as JSON bytes. */
export function encodeRetiredKeys(retired: RetiredKeys): Uint8Array {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [role, keys] of retired) {
    const entries: Record<string, unknown> = {};
    for (const [keyid, key] of keys) {
      // A key with no public value never verified anything: nothing to name it by.
      if (key.publicValue === undefined) continue;
      entries[keyid] = {
        keytype: key.keytype,
        scheme: key.scheme,
        keyval: { public: key.publicValue },
      };
    }
    out[role] = entries;
  }
  return new TextEncoder().encode(JSON.stringify(out));
}

/** The retired keys `bytes` hold, less any the trusted `root` lists for that role. */
export function decodeRetiredKeys(bytes: Uint8Array | undefined, root: Root): RetiredKeys {
  const retired = new Map<TopLevelRole, ReadonlyMap<string, TufKey>>();
  if (bytes === undefined) return retired;
  let doc;
  try {
    doc = parseStrictJson(bytes);
  } catch {
    return retired;
  }
  if (!isJsonObject(doc)) return retired;
  for (const role of TOP_LEVEL_ROLES) {
    const entries = doc[role];
    if (!isJsonObject(entries)) continue;
    const keys = new Map<string, TufKey>();
    for (const [keyid, value] of Object.entries(entries)) {
      const key = keyOf(keyid, value);
      if (key !== undefined && !root.roles[role].keyids.includes(keyid)) keys.set(keyid, key);
    }
    retired.set(role, keys);
  }
  return retired;
}

function keyOf(keyid: string, value: JsonValue): TufKey | undefined {
  if (!isJsonObject(value)) return undefined;
  const { keytype, scheme, keyval } = value;
  const publicValue = isJsonObject(keyval) ? keyval['public'] : undefined;
  if (typeof keytype !== 'string' || typeof scheme !== 'string') return undefined;
  if (typeof publicValue !== 'string') return undefined;
  return { keyid, keytype, scheme, publicValue };
}
