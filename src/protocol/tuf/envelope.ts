/**
 * One metadata file from its bytes (TUF spec §4.2): strict JSON, `signatures` with no keyid
 * twice, and `signed` parsed as the role the caller expects. The canonical bytes of `signed`
 * are kept for signature checks; the raw bytes for storage.
 */
import { canonicalJson } from './canonical-json.js';
import { malformed, objectAt, stringAt } from './fields.js';
import type {
  Envelope,
  Root,
  Signature,
  Signed,
  Snapshot,
  Targets,
  Timestamp,
} from './metadata.js';
import { parseRoot, parseSnapshot, parseTimestamp } from './parse-roles.js';
import { parseTargets } from './parse-targets.js';
import {
  isJsonObject,
  parseStrictDocument,
  type JsonObject,
  type JsonValue,
} from './strict-json.js';
import { TufError } from './tuf-error.js';

interface ByType {
  root: Root;
  timestamp: Timestamp;
  snapshot: Snapshot;
  targets: Targets;
}
export type RoleType = keyof ByType;

const PARSERS: { readonly [K in RoleType]: (signed: JsonObject) => ByType[K] } = {
  root: parseRoot,
  timestamp: parseTimestamp,
  snapshot: parseSnapshot,
  targets: parseTargets,
};

/** Parses metadata bytes of the given type; throws a TufError naming what is wrong. */
export function parseEnvelope<K extends RoleType>(bytes: Uint8Array, type: K): Envelope<ByType[K]> {
  const { value: document, canonical } = parseStrictDocument(bytes);
  if (!isJsonObject(document)) throw malformed('metadata', 'must be a JSON object');
  const signedJson = objectAt(document, 'signed', 'metadata');
  const signed = PARSERS[type](signedJson) as ByType[K] & Signed;
  return {
    signed,
    signatures: parseSignatures(document['signatures']),
    // A `signed` written canonically (as our repository writes it) is its own canonical form.
    signedBytes: canonical.get('signed') ?? canonicalJson(signedJson),
    raw: bytes,
  };
}

function parseSignatures(value: JsonValue | undefined): readonly Signature[] {
  if (!Array.isArray(value)) throw malformed('metadata', '"signatures" must be an array');
  const seen = new Set<string>();
  return (value as readonly JsonValue[]).map((item) => {
    if (!isJsonObject(item)) throw malformed('signatures', 'a signature must be an object');
    const keyid = stringAt(item, 'keyid', 'signature');
    // TUF spec §4.2: a keyid is unique in "signatures"; a repeat could fake a threshold.
    if (seen.has(keyid)) {
      throw new TufError('DUPLICATE_SIGNATURE', `keyid ${keyid} signs twice`, { keyid });
    }
    seen.add(keyid);
    return { keyid, sig: stringAt(item, 'sig', 'signature') };
  });
}
