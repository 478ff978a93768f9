/**
 * The updater's error codes (src/core/errors.ts) in plain words, with what to do and what kind
 * of trouble each is, for the window, the tray and the notifications alike (docs/DESKTOP.md
 * "Updates"). A refusal of signed data is never presented as network weather: it says that
 * nothing was installed, that retrying will not help, and whom to tell. The code is always
 * shown next to the words, so support can match what the user sees with the log.
 */
import type { ErrorKind, ErrorView } from '#preload/ipc-contract.js';

interface Entry {
  readonly kind: ErrorKind;
  readonly words: string;
  /** Overrides the kind's advice. */
  readonly advice?: string;
}

const ADVICE: Readonly<Record<ErrorKind, string>> = {
  security:
    'Nothing was installed and the current version stays. Retrying will not help: tell the registry’s administrator, and do not turn verification off.',
  network:
    'The next check retries on its own. If this lasts, check the network connection or the proxy.',
  access: 'Check the machine key in Settings, or ask the registry’s administrator.',
  settings: 'Open Settings to fix it.',
  local: 'Open the log for details.',
  cancelled: 'What was downloaded is kept; the next check resumes from there.',
};

const TABLE: Readonly<Record<string, Entry>> = {
  SIGNATURE_INVALID: {
    kind: 'security',
    words: 'The update was refused: its signature does not match the pinned key.',
  },
  UNKNOWN_KEY: {
    kind: 'security',
    words: 'The update was refused: it is signed by a key this app does not trust.',
  },
  ENVELOPE_MALFORMED: {
    kind: 'security',
    words: 'The registry sent a damaged update description.',
  },
  WRONG_PAYLOAD_TYPE: {
    kind: 'security',
    words: 'The registry sent something that is not an update description.',
  },
  MANIFEST_MALFORMED: {
    kind: 'security',
    words: 'The registry sent a damaged update description.',
  },
  MANIFEST_EXPIRED: {
    kind: 'security',
    words: 'The update description has expired; the registry may be stale or replayed.',
    advice:
      'Nothing was installed. If this computer’s date and time are right, the registry has stopped renewing its signatures: tell its administrator.',
  },
  MANIFEST_FROM_FUTURE: {
    kind: 'security',
    words: 'The update description is dated in the future.',
    advice:
      'Nothing was installed. Check this computer’s date and time; if they are right, tell the registry’s administrator.',
  },
  ROLLBACK: {
    kind: 'security',
    words: 'The update was refused: it is older than a version already accepted.',
  },
  EQUIVOCATION: {
    kind: 'security',
    words: 'The update was refused: the registry sent two different releases with one version.',
  },
  THRESHOLD_NOT_MET: {
    kind: 'security',
    words: 'The update was refused: it is not signed by enough of the registry’s keys.',
  },
  KEY_RETIRED: {
    kind: 'security',
    words: 'The update was refused: it is signed by a key the registry has retired.',
  },
  TIMESTAMP_LIFETIME: {
    kind: 'security',
    words:
      'The update was refused: the registry’s freshness signature claims to stay valid too long.',
  },
  TOO_MANY_ROOT_ROTATIONS: {
    kind: 'security',
    words:
      'The update was refused: the registry changed its root keys more often than is believable.',
  },
  KEY_CHAIN_GAP: {
    kind: 'security',
    words: 'The update was refused: the registry’s key changes cannot be followed one by one.',
  },
  FRESHNESS_MISMATCH: {
    kind: 'security',
    words: 'The update was refused: its freshness signature is for another release.',
  },
  FRESHNESS_ROLLBACK: {
    kind: 'security',
    words: 'The update was refused: it is older than one already seen; it may be replayed.',
  },
  NONCE_MISMATCH: {
    kind: 'security',
    words: 'The update was refused: the answer was not signed for this request.',
  },
  FORMAT_DOWNGRADE: {
    kind: 'security',
    words: 'The update was refused: the registry sent an older kind of signature than before.',
  },
  MANIFEST_TOO_LARGE: { kind: 'security', words: 'The update description is larger than allowed.' },
  TOO_MANY_ARTIFACTS: { kind: 'security', words: 'The update has more files than allowed.' },
  ARTIFACT_TOO_LARGE: { kind: 'security', words: 'A file in the update is larger than allowed.' },
  UNSAFE_NAME: {
    kind: 'security',
    words: 'The update was refused: a file name would escape the install folder.',
  },
  BAD_DIGEST: { kind: 'security', words: 'The update description lists a malformed checksum.' },
  HASH_MISMATCH: {
    kind: 'security',
    words: 'A downloaded file did not match its signed checksum and was discarded.',
    advice:
      'Nothing was installed and the current version stays. The next check downloads the file again; if this repeats, tell the registry’s administrator.',
  },
  SIZE_MISMATCH: {
    kind: 'security',
    words: 'A downloaded file had the wrong size and was discarded.',
    advice:
      'Nothing was installed and the current version stays. The next check downloads the file again; if this repeats, tell the registry’s administrator.',
  },
  UNAUTHORIZED: { kind: 'access', words: 'The registry did not accept this machine key.' },
  SUBSCRIPTION_INACTIVE: {
    kind: 'access',
    words: 'The subscription for this machine is not active.',
    advice: 'Ask the registry’s administrator to renew it.',
  },
  RATE_LIMITED: {
    kind: 'network',
    words: 'The registry asked us to slow down.',
    advice: 'The next check waits as long as the registry asked, then retries on its own.',
  },
  HTTP_STATUS: { kind: 'network', words: 'The registry answered with an unexpected error.' },
  CONTENT_ENCODING: {
    kind: 'network',
    words: 'The registry’s answer came compressed in a form that could not be read.',
  },
  NETWORK: {
    kind: 'network',
    words: 'The registry cannot be reached.',
  },
  STALLED: {
    kind: 'network',
    words: 'The download stalled and was stopped.',
    advice: 'What was downloaded is kept; the next check resumes from there.',
  },
  ABORTED: { kind: 'cancelled', words: 'The update was cancelled.' },
  LOCKED: {
    kind: 'local',
    words: 'Another updater is working on the same folder.',
    advice: 'Close the other copy of the app or the command-line updater, then check again.',
  },
  STATE_CORRUPT: { kind: 'local', words: 'The local update records are damaged.' },
  STATE_UNSAFE: {
    kind: 'local',
    words: 'Something was planted in the updater’s folder (a link where its own files belong).',
    advice:
      'Nothing was changed. Remove the entry the log names (it may point at other files), then check again.',
  },
  NOTHING_TO_ROLL_BACK: {
    kind: 'local',
    words: 'There is no previous version to go back to.',
    advice: 'Roll back becomes possible after the next update.',
  },
  NOT_INSTALLED: {
    kind: 'local',
    words: 'Nothing is installed yet.',
    advice: 'Check for updates to install the current version.',
  },
  IO: { kind: 'local', words: 'The update could not be written to disk.' },
  TRUSTED_ROOT_INVALID: {
    kind: 'settings',
    words: 'The trusted root file shipped or given is not a valid, self-signed root.',
  },
  CLEANUP_PENDING: {
    kind: 'local',
    words: 'The new version is installed, but the disk filled up before the clean-up.',
    advice: 'Free some disk space; the next check finishes the clean-up.',
  },
  NO_PINNED_KEY: {
    kind: 'settings',
    words: 'No trusted key is configured, so no update can be accepted.',
  },
  CONFIG_INVALID: { kind: 'settings', words: 'The updater settings are incomplete or invalid.' },
  HEALTH_CHECK_FAILED: {
    kind: 'local',
    words: 'The new version failed its health check; the previous version was restored.',
    advice:
      'That version will not be installed again; a newer one will. Open the log for the reason.',
  },
};

/** The error as the window shows it; an unknown code keeps the core's message. */
export function describeError(code: string, message: string): ErrorView {
  const entry = TABLE[code];
  const kind = entry?.kind ?? 'local';
  return {
    code,
    message,
    words: entry?.words ?? message,
    advice: entry?.advice ?? ADVICE[kind],
    kind,
  };
}

/** Every code with an entry (tests check the core's codes are all covered). */
export const DESCRIBED_CODES: readonly string[] = Object.keys(TABLE);
