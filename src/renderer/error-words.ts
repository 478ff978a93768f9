/**
 * Plain words for the updater's error codes (src/core/errors.ts). The code is always shown
 * next to them, so support can match what the user sees with the logs.
 */
const WORDS: Readonly<Record<string, string>> = {
  SIGNATURE_INVALID: 'The update was refused: its signature does not match the pinned key.',
  UNKNOWN_KEY: 'The update was refused: it is signed by a key this app does not trust.',
  NO_PINNED_KEY: 'No trusted key is configured, so no update can be accepted.',
  ENVELOPE_MALFORMED: 'The registry sent a damaged update description.',
  WRONG_PAYLOAD_TYPE: 'The registry sent something that is not an update description.',
  MANIFEST_MALFORMED: 'The registry sent a damaged update description.',
  MANIFEST_EXPIRED: 'The update description has expired; the registry may be stale.',
  MANIFEST_FROM_FUTURE:
    "The update description is dated in the future; check this computer's clock.",
  ROLLBACK: 'The update was refused: it is older than what is already installed.',
  EQUIVOCATION:
    'The update was refused: the registry sent two different releases with one version.',
  MANIFEST_TOO_LARGE: 'The update description is larger than allowed.',
  TOO_MANY_ARTIFACTS: 'The update has more files than allowed.',
  ARTIFACT_TOO_LARGE: 'A file in the update is larger than allowed.',
  UNSAFE_NAME: 'The update was refused: a file name would escape the install folder.',
  BAD_DIGEST: 'The update description lists a malformed checksum.',
  HASH_MISMATCH: 'A downloaded file did not match its signed checksum and was discarded.',
  SIZE_MISMATCH: 'A downloaded file had the wrong size and was discarded.',
  UNAUTHORIZED: 'The registry did not accept this machine key.',
  SUBSCRIPTION_INACTIVE: 'The subscription for this machine is not active.',
  RATE_LIMITED: 'The registry asked us to slow down; the next check will retry.',
  HTTP_STATUS: 'The registry answered with an unexpected error.',
  NETWORK: 'The registry cannot be reached. Check the network connection.',
  STALLED: 'The download stalled and was stopped; the next check will resume it.',
  ABORTED: 'The update was cancelled.',
  LOCKED: 'Another updater is working on the same folder.',
  STATE_CORRUPT: 'The local update records are damaged.',
  NOTHING_TO_ROLL_BACK: 'There is no previous version to go back to.',
  NOT_INSTALLED: 'Nothing is installed yet.',
  IO: 'The update could not be written to disk.',
  CONFIG_INVALID: 'The updater settings are incomplete or invalid.',
  // The window's own: its bridge to the main process failed (src/renderer/status-view.ts).
  BRIDGE: 'The app’s background process did not answer. Try again, or restart the app.',
};

/** The sentence shown for a code; unknown codes fall back to the core's own message. */
export function errorWords(code: string, message: string): string {
  return WORDS[code] ?? message;
}
