/**
 * Refusals of the TUF client workflow (src/core/tuf, TufError) mapped onto the updater's one
 * taxonomy (errors.ts), once, for every caller. A code keeps its format 1/2 name where the
 * meaning is the same (docs/PROTOCOL.md §TUF repository, "Client"): a bad signature threshold
 * is THRESHOLD_NOT_MET in both, a wrong length SIZE_MISMATCH as for an artifact. The TUF code
 * rides along in the details (`tuf_code`) so a report can still tell them apart.
 */
import { TufError, type TufErrorCode } from '#protocol/tuf/index.js';
import { UpdateError, localClock, type UpdateErrorCode } from '../errors.js';

const TUF_TO_UPDATE: Readonly<Record<TufErrorCode, UpdateErrorCode>> = {
  JSON_BOM: 'ENVELOPE_MALFORMED',
  JSON_MALFORMED: 'ENVELOPE_MALFORMED',
  JSON_DUPLICATE_MEMBER: 'ENVELOPE_MALFORMED',
  JSON_AMBIGUOUS: 'ENVELOPE_MALFORMED',
  METADATA_MALFORMED: 'ENVELOPE_MALFORMED',
  WRONG_TYPE: 'ENVELOPE_MALFORMED',
  UNSUPPORTED_SPEC_VERSION: 'ENVELOPE_MALFORMED',
  DUPLICATE_SIGNATURE: 'ENVELOPE_MALFORMED',
  THRESHOLD_NOT_MET: 'THRESHOLD_NOT_MET',
  KEY_RETIRED: 'KEY_RETIRED',
  // Refined below: a root that is not exactly N+1 is a gap in the root chain.
  BAD_VERSION: 'FRESHNESS_MISMATCH',
  ROLLBACK: 'ROLLBACK',
  EXPIRED: 'MANIFEST_EXPIRED',
  TIMESTAMP_LIFETIME: 'TIMESTAMP_LIFETIME',
  TOO_MANY_ROOT_ROTATIONS: 'TOO_MANY_ROOT_ROTATIONS',
  LENGTH_MISMATCH: 'SIZE_MISMATCH',
  HASH_MISMATCH: 'HASH_MISMATCH',
  UNSUPPORTED_HASH: 'BAD_DIGEST',
  TOO_LARGE: 'MANIFEST_TOO_LARGE',
  ROLE_NOT_IN_SNAPSHOT: 'FRESHNESS_MISMATCH',
  NOT_DELEGATED: 'MANIFEST_MALFORMED',
  TOO_MANY_DELEGATIONS: 'MANIFEST_MALFORMED',
  TARGET_NOT_FOUND: 'MANIFEST_MALFORMED',
  WRONG_ORDER: 'IO',
  NO_TRUSTED_ROOT: 'CONFIG_INVALID',
  UNSAFE_NAME: 'UNSAFE_NAME',
  FETCH_FAILED: 'NETWORK',
  // The timestamp (or a file timestamp and snapshot name) is not there: nothing is published.
  NOT_FOUND: 'HTTP_STATUS',
  STORE_FAILED: 'IO',
  NONCE_MISMATCH: 'NONCE_MISMATCH',
};

/** The UpdateError of a TufError; an UpdateError passes as it is, anything else is rethrown. */
export function fromTufError(error: unknown, nowMs: number): UpdateError {
  if (error instanceof UpdateError) return error;
  if (!(error instanceof TufError)) throw error;
  let code = TUF_TO_UPDATE[error.code];
  if (error.code === 'BAD_VERSION' && error.message.startsWith('expected root ')) {
    code = 'KEY_CHAIN_GAP';
  }
  const message =
    code === 'MANIFEST_EXPIRED' ? `${error.message}; ${localClock(nowMs)}` : error.message;
  return new UpdateError(code, message, {
    cause: error,
    transient: code === 'NETWORK',
    details: { ...error.details, tuf_code: error.code },
  });
}
