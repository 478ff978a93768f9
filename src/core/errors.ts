/**
 * The updater's one error taxonomy. Every refusal is an UpdateError with a stable `code`; the
 * CLI exits with it, the app shows it, tests assert it. Messages never carry secrets.
 */
export type UpdateErrorCode =
  // signature and trust
  | 'SIGNATURE_INVALID'
  | 'UNKNOWN_KEY'
  | 'NO_PINNED_KEY'
  | 'ENVELOPE_MALFORMED'
  | 'WRONG_PAYLOAD_TYPE'
  // signature roles, key chain and freshness (answer format 2, docs/PROTOCOL.md §2.7.5)
  | 'THRESHOLD_NOT_MET'
  | 'KEY_RETIRED'
  | 'KEY_CHAIN_GAP'
  | 'FRESHNESS_MISMATCH'
  | 'FRESHNESS_ROLLBACK'
  | 'NONCE_MISMATCH'
  | 'FORMAT_DOWNGRADE'
  // manifest content and policy
  | 'MANIFEST_MALFORMED'
  | 'MANIFEST_EXPIRED'
  | 'MANIFEST_FROM_FUTURE'
  | 'ROLLBACK'
  | 'EQUIVOCATION'
  | 'MANIFEST_TOO_LARGE'
  | 'TOO_MANY_ARTIFACTS'
  | 'ARTIFACT_TOO_LARGE'
  | 'UNSAFE_NAME'
  | 'BAD_DIGEST'
  // transfer
  | 'HASH_MISMATCH'
  | 'SIZE_MISMATCH'
  | 'UNAUTHORIZED'
  | 'SUBSCRIPTION_INACTIVE'
  | 'RATE_LIMITED'
  | 'HTTP_STATUS'
  /** A content coding we did not ask for, or a gzip stream that does not inflate
   *  (docs/PROTOCOL.md §2.7.6, Content coding). */
  | 'CONTENT_ENCODING'
  | 'NETWORK'
  | 'STALLED'
  | 'ABORTED'
  // local state
  | 'LOCKED'
  | 'STATE_CORRUPT'
  /** An entry inside the state directory is a symbolic link or of the wrong kind. */
  | 'STATE_UNSAFE'
  | 'NOTHING_TO_ROLL_BACK'
  | 'NOT_INSTALLED'
  | 'IO'
  /**
   * A write failed after the live set was switched (ENOSPC, EIO): the new version IS installed
   * and its clean-up (state file, journal, GC) waits for the next run (docs/UPDATER.md §3).
   */
  | 'CLEANUP_PENDING'
  | 'CONFIG_INVALID'
  // health check (docs/UPDATER.md §3): the new set failed it and the previous one is back
  | 'HEALTH_CHECK_FAILED'
  /** A timestamp expiring further ahead than maxTimestampLifetimeS (a freeze bound). */
  | 'TIMESTAMP_LIFETIME'
  /** More new roots in one run than the client walks (TUF spec §5.3.3, bounded). */
  | 'TOO_MANY_ROOT_ROTATIONS'
  /** A `--trusted-root` file that is not a root signed by its own threshold (TUF spec §5.2). */
  | 'TRUSTED_ROOT_INVALID';

/**
 * What a refusal was about, for people and for `--json` (docs/UPDATER.md §7): `url` (scheme,
 * host and path only: never a query, fragment or user info, never the machine key), `status`,
 * `errno`, `path`, `keyids_seen`, `keyids_pinned`... Snake-case keys, plain values, no secrets.
 */
export type UpdateErrorDetails = Readonly<Record<string, string | number | readonly string[]>>;

export interface UpdateErrorOptions {
  readonly cause?: unknown;
  readonly retryAfterMs?: number;
  readonly transient?: boolean;
  readonly details?: UpdateErrorDetails | undefined;
}

export class UpdateError extends Error {
  override readonly name = 'UpdateError';
  /** Milliseconds the server asked us to wait (Retry-After), when it did. */
  readonly retryAfterMs: number | undefined;
  /**
   * True when trying again may succeed (a dropped connection, a 5xx, a stall). Refusals of
   * signed data (signature, hash, size, policy) are never transient: retrying cannot fix them.
   */
  readonly transient: boolean;
  /** The context of the refusal (the URL, the keyids, the path and errno), when known. */
  readonly details: UpdateErrorDetails | undefined;

  constructor(
    readonly code: UpdateErrorCode,
    message: string,
    options?: UpdateErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options?.retryAfterMs;
    this.transient = options?.transient ?? false;
    this.details = options?.details;
  }

  /** The plain, serialisable form shown to users and written by `--json`. */
  toJSON(): { code: UpdateErrorCode; message: string; details?: UpdateErrorDetails } {
    return {
      code: this.code,
      message: this.message,
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

/**
 * The file-system context of a Node errno error (`path`, `dest`, `errno`, `syscall`), read
 * structurally so the core stays free of node:fs; undefined when there is none.
 */
export function errnoDetails(error: unknown): UpdateErrorDetails | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const fields = error as Record<string, unknown>;
  const details: Record<string, string> = {};
  if (typeof fields['path'] === 'string') details['path'] = fields['path'];
  if (typeof fields['dest'] === 'string') details['dest'] = fields['dest'];
  if (typeof fields['code'] === 'string') details['errno'] = fields['code'];
  if (typeof fields['syscall'] === 'string') details['syscall'] = fields['syscall'];
  return Object.keys(details).length === 0 ? undefined : details;
}

export function isUpdateError(value: unknown): value is UpdateError {
  return value instanceof UpdateError;
}

/**
 * Types anything thrown as an UpdateError (an unknown error is IO, not transient). Called once,
 * where a run ends (update-loop.ts) and where the CLI prints: nothing in between re-wraps.
 */
export function toUpdateError(error: unknown): UpdateError {
  if (error instanceof UpdateError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new UpdateError('IO', message, { cause: error, details: errnoDetails(error) });
}

/**
 * Said with every expiry refusal (MANIFEST_EXPIRED, MANIFEST_FROM_FUTURE): what this machine's
 * clock read, so a clock years off (a dead CMOS battery, a VM restored from a snapshot) shows
 * as such instead of reading as a stale registry (docs/UPDATER.md §7).
 */
export function localClock(nowMs: number): string {
  return `this machine's clock reads ${new Date(nowMs).toISOString()}`;
}
