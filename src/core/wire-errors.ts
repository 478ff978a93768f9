/**
 * Refusals of the shared wire code (src/protocol: ProtocolError for structure, TrustError for
 * keys) mapped onto the updater's one taxonomy (errors.ts), once, for every caller.
 */
import { ProtocolError, type ProtocolErrorCode } from '#protocol/protocol-error.js';
import { TrustError } from '#protocol/trust-error.js';
import { UpdateError, type UpdateErrorCode } from './errors.js';

const PROTOCOL_TO_UPDATE: Readonly<Record<ProtocolErrorCode, UpdateErrorCode>> = {
  ENVELOPE_MALFORMED: 'ENVELOPE_MALFORMED',
  MANIFEST_MALFORMED: 'MANIFEST_MALFORMED',
  UNSAFE_NAME: 'UNSAFE_NAME',
  // Names equal up to case collide on macOS and Windows file systems: a path attack.
  DUPLICATE_NAME: 'UNSAFE_NAME',
  UNSORTED_NAMES: 'MANIFEST_MALFORMED',
  BAD_DIGEST: 'BAD_DIGEST',
  BAD_VERSION: 'MANIFEST_MALFORMED',
  // A pinned key given to us (configuration); inside a signed payload see fromTrustError.
  BAD_KEY: 'CONFIG_INVALID',
};

/** Maps a wire-format error onto the updater taxonomy (anything else is rethrown). */
export function fromProtocolError(error: unknown): UpdateError {
  if (error instanceof UpdateError) return error;
  if (error instanceof ProtocolError) {
    return new UpdateError(PROTOCOL_TO_UPDATE[error.code], error.message, { cause: error });
  }
  throw error;
}

/**
 * Maps a refusal met while checking a format 2 answer: role and chain refusals keep their
 * code (the same words in both taxonomies); a malformed key inside a signed key set is a
 * malformed payload (MANIFEST_MALFORMED), not our configuration.
 */
export function fromTrustError(error: unknown): UpdateError {
  if (error instanceof TrustError) {
    return new UpdateError(error.code, error.message, { cause: error });
  }
  if (error instanceof ProtocolError && error.code === 'BAD_KEY') {
    return new UpdateError('MANIFEST_MALFORMED', error.message, { cause: error });
  }
  return fromProtocolError(error);
}
