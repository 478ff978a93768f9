/**
 * The signed bytes a set installed under TUF keeps (docs/PROTOCOL.md §TUF repository,
 * "Delegated targets in a release"): the top-level targets bytes as received when no role
 * delegates (the set id is then the SHA-256 of targets.json, as before delegations counted),
 * else a release record `{"tuf_release":1,"roles":[[name, base64 of the bytes as received],
 * ...]}` in walk order. `verify` and the floor read the record back and walk it again offline
 * (no fetch, no expiry), so they see exactly the release the run installed.
 */
import { decodeBase64Strict } from '#protocol';
import {
  isJsonObject,
  parseEnvelope,
  parseStrictJson,
  requireThreshold,
  type Envelope,
  type Root,
  type Targets,
} from '#protocol/tuf/index.js';
import { UpdateError } from '../errors.js';
import {
  requireSignedByDelegations,
  walkRelease,
  type ReleaseLimits,
  type TrustedRelease,
} from '../tuf/index.js';

const RECORD_HEAD = '{"tuf_release":1,';

/** The bytes an installed set keeps for `release` (see the file comment). */
export function releaseBytes(release: TrustedRelease): Uint8Array {
  const [top] = release.roles;
  if (release.roles.length === 1 && top !== undefined) return top.envelope.raw;
  const roles = release.roles.map((r) => [r.name, Buffer.from(r.envelope.raw).toString('base64')]);
  return new TextEncoder().encode(`${RECORD_HEAD}"roles":${JSON.stringify(roles)}}`);
}

/** True when `bytes` are a release record rather than one targets document. */
export function isReleaseRecord(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, RECORD_HEAD.length)).toString('utf8') === RECORD_HEAD;
}

/** Role name -> bytes as received, of a release record or of a lone targets document. */
function storedRoles(bytes: Uint8Array): Map<string, Uint8Array> {
  if (!isReleaseRecord(bytes)) return new Map([['targets', bytes]]);
  const record = parseStrictJson(bytes);
  const roles = isJsonObject(record) ? record['roles'] : undefined;
  if (!Array.isArray(roles)) throw corrupt('has no roles');
  const out = new Map<string, Uint8Array>();
  for (const entry of roles) {
    const pair: readonly unknown[] = Array.isArray(entry) ? (entry as unknown[]) : [];
    const [name, data] = pair;
    if (typeof name !== 'string' || typeof data !== 'string' || out.has(name)) {
      throw corrupt('has a malformed role entry');
    }
    out.set(name, decodeBase64Strict(data, `release role ${name}`));
  }
  return out;
}

/** The top-level targets of stored set bytes (either form), parsed, signatures unchecked. */
export function storedTopTargets(bytes: Uint8Array): Envelope<Targets> {
  const top = storedRoles(bytes).get('targets');
  if (top === undefined) throw corrupt('has no top-level targets');
  return parseEnvelope(top, 'targets');
}

/**
 * The release stored set bytes hold, walked again under `root`: top-level targets against
 * root's targets role, each delegated role against every delegator that names it. TUF errors
 * pass through (the caller maps them); a role the walk needs and the record lacks is
 * STATE_CORRUPT.
 */
export function storedRelease(
  bytes: Uint8Array,
  root: Root,
  limits: ReleaseLimits,
): Promise<TrustedRelease> {
  const raw = storedRoles(bytes);
  const parsed = new Map<string, Envelope<Targets>>();
  return walkRelease((role, delegator) => {
    const data = raw.get(role);
    if (data === undefined) throw corrupt(`lacks the role ${role}`);
    const envelope = parsed.get(role) ?? parseEnvelope(data, 'targets');
    if (delegator === 'root') {
      requireThreshold(envelope, root.keys, root.roles.targets, role);
    } else {
      // The walk loads a delegator before the roles it names, and only roles it names.
      const delegations = parsed.get(delegator)?.signed.delegations;
      if (delegations === undefined) throw corrupt(`names ${role} under no delegator`);
      requireSignedByDelegations(envelope, role, delegator, delegations);
    }
    parsed.set(role, envelope);
    return Promise.resolve(envelope);
  }, limits);
}

function corrupt(what: string): UpdateError {
  return new UpdateError('STATE_CORRUPT', `the installed TUF release record ${what}`);
}
