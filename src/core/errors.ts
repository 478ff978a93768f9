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
  | 'CONFIG_INVALID';

export class UpdateError extends Error {
  override readonly name = 'UpdateError';
  /** Milliseconds the server asked us to wait (Retry-After), when it did. */
  readonly retryAfterMs: number | undefined;
  /**
   * True when trying again may succeed (a dropped connection, a 5xx, a stall). Refusals of
   * signed data (signature, hash, size, policy) are never transient: retrying cannot fix them.
   */
  readonly transient: boolean;

  constructor(
    readonly code: UpdateErrorCode,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number; transient?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options?.retryAfterMs;
    this.transient = options?.transient ?? false;
  }

  /** The plain, serialisable form shown to users and written by `--json`. */
  toJSON(): { code: UpdateErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
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
  return new UpdateError('IO', message, { cause: error });
}
