/**
 * Refusals of the signature roles (docs/PROTOCOL.md §2.7, docs/SECURITY.md §5): who signed a
 * key set, a release or a freshness statement, and whether a key chain links up. Structural
 * problems of the same payloads are ProtocolErrors; these are decisions about keys. Client and
 * server map the stable `code` onto their own taxonomies.
 */
export type TrustErrorCode =
  /** The envelope's (signed) payloadType is not the one its role requires. */
  | 'WRONG_PAYLOAD_TYPE'
  /** A signature under a key of the role does not verify (tampering or a corrupted signature). */
  | 'SIGNATURE_INVALID'
  /** No signature names any key the client knows. */
  | 'UNKNOWN_KEY'
  /** The only signatures are by keys a newer key set retired. */
  | 'KEY_RETIRED'
  /** Fewer distinct keys of the role signed than its threshold (also: keys of another role). */
  | 'THRESHOLD_NOT_MET'
  /** The key sets do not follow each other version by version from the trusted one. */
  | 'KEY_CHAIN_GAP';

export class TrustError extends Error {
  override readonly name = 'TrustError';
  constructor(
    readonly code: TrustErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
