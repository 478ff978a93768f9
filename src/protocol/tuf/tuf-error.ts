/**
 * The one error type of the TUF layer. Every refusal carries a stable `code` naming its cause;
 * tests assert the code, callers map it (the conformance CLI exits 1 on any of them).
 */
export type TufErrorCode =
  // bytes and JSON (strict parsing: one reading only)
  | 'JSON_BOM'
  | 'JSON_MALFORMED'
  | 'JSON_DUPLICATE_MEMBER'
  | 'JSON_AMBIGUOUS'
  // metadata shape
  | 'METADATA_MALFORMED'
  | 'WRONG_TYPE'
  | 'UNSUPPORTED_SPEC_VERSION'
  | 'DUPLICATE_SIGNATURE'
  // signatures (TUF spec §5.3.4, §5.4.2, §5.5.3, §5.6.3)
  | 'THRESHOLD_NOT_MET'
  | 'KEY_RETIRED'
  // versions, freshness, rollback (TUF spec §5.3.5, §5.4.3, §5.5.5, §5.6.4)
  | 'BAD_VERSION'
  | 'ROLLBACK'
  | 'EXPIRED'
  | 'TIMESTAMP_LIFETIME'
  | 'TOO_MANY_ROOT_ROTATIONS'
  // the request nonce, an extra signed field of timestamp (docs/PROTOCOL.md §TUF repository)
  | 'NONCE_MISMATCH'
  // lengths and hashes (TUF spec §5.5.2, §5.6.2, §5.7.3)
  | 'LENGTH_MISMATCH'
  | 'HASH_MISMATCH'
  | 'UNSUPPORTED_HASH'
  | 'TOO_LARGE'
  // snapshot consistency and delegations (TUF spec §5.5.5, §5.6, §5.6.7)
  | 'ROLE_NOT_IN_SNAPSHOT'
  | 'NOT_DELEGATED'
  | 'TOO_MANY_DELEGATIONS'
  | 'TARGET_NOT_FOUND'
  // workflow and ports
  | 'WRONG_ORDER'
  | 'NO_TRUSTED_ROOT'
  | 'UNSAFE_NAME'
  | 'FETCH_FAILED'
  | 'NOT_FOUND'
  | 'STORE_FAILED';

export type TufErrorDetails = Readonly<Record<string, string | number | readonly string[]>>;

export class TufError extends Error {
  override readonly name = 'TufError';

  constructor(
    readonly code: TufErrorCode,
    message: string,
    readonly details?: TufErrorDetails,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

export function isTufError(value: unknown, code?: TufErrorCode): value is TufError {
  return value instanceof TufError && (code === undefined || value.code === code);
}
