/**
 * Errors raised by the wire-format parsers. Client and server both map these onto their own
 * error taxonomies; the `code` is stable and safe to show (it never carries secret material).
 */
export type ProtocolErrorCode =
  | 'ENVELOPE_MALFORMED'
  | 'MANIFEST_MALFORMED'
  | 'UNSAFE_NAME'
  | 'DUPLICATE_NAME'
  | 'UNSORTED_NAMES'
  | 'BAD_DIGEST'
  | 'BAD_VERSION'
  | 'BAD_KEY';

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
