/**
 * The freshness statement (docs/PROTOCOL.md §2.7.3): a small, short-lived statement by an
 * online freshness key that names the current release and key set, re-signed by the server
 * on its own clock with a sequence that only grows, optionally bound to a client's nonce.
 *
 *   {"release_sha256": "<64 hex>", "keys_version": 3, "sequence": 42,
 *    "issued_at": "<RFC 3339>", "expires_at": "<RFC 3339>", "nonce": "<base64url>"?}
 */
import { parseJsonObject, requiredField } from './json-object.js';
import { isRfc3339, SHA256_HEX } from './manifest.js';
import { ProtocolError } from './protocol-error.js';

export const FRESHNESS_PAYLOAD_TYPE = 'application/vnd.updates.freshness+json';
/** A statement is a few hundred bytes; anything much larger is not one. */
export const MAX_FRESHNESS_PAYLOAD_BYTES = 1024;
/** A client nonce: 16 to 64 base64url characters (96 to 384 bits of the client's choice). */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

export interface FreshnessStatement {
  /** SHA-256 of the release payload bytes this statement vouches for. */
  readonly release_sha256: string;
  /** Version of the newest key set when it was signed. */
  readonly keys_version: number;
  readonly sequence: number;
  readonly issued_at: string;
  readonly expires_at: string;
  readonly nonce?: string;
}

export interface ParsedFreshness extends FreshnessStatement {
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
}

function malformed(message: string): never {
  throw new ProtocolError('MANIFEST_MALFORMED', `freshness: ${message}`);
}

const positiveInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;

export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && NONCE_PATTERN.test(value);
}

/** Parses freshness statement bytes; unknown fields are ignored, known ones checked strictly. */
export function parseFreshness(bytes: Uint8Array): ParsedFreshness {
  if (bytes.length > MAX_FRESHNESS_PAYLOAD_BYTES) {
    malformed(`payload is over ${MAX_FRESHNESS_PAYLOAD_BYTES} bytes`);
  }
  const o = parseJsonObject(bytes, 'freshness');
  const digest = requiredField(o, 'release_sha256', 'freshness');
  const keysVersion = requiredField(o, 'keys_version', 'freshness');
  const sequence = requiredField(o, 'sequence', 'freshness');
  const issued = requiredField(o, 'issued_at', 'freshness');
  const expires = requiredField(o, 'expires_at', 'freshness');
  if (typeof digest !== 'string' || !SHA256_HEX.test(digest)) {
    throw new ProtocolError('BAD_DIGEST', 'freshness: release_sha256 is not 64 lowercase hex');
  }
  if (!positiveInteger(keysVersion)) malformed('keys_version is not a positive integer');
  if (!positiveInteger(sequence)) malformed('sequence is not a positive integer');
  if (typeof issued !== 'string' || !isRfc3339(issued)) malformed('issued_at is not RFC 3339');
  if (typeof expires !== 'string' || !isRfc3339(expires)) malformed('expires_at is not RFC 3339');
  const issuedAtMs = Date.parse(issued);
  const expiresAtMs = Date.parse(expires);
  if (expiresAtMs <= issuedAtMs) malformed('expires_at is not after issued_at');
  const statement = {
    release_sha256: digest,
    keys_version: keysVersion,
    sequence,
    issued_at: issued,
    expires_at: expires,
    issuedAtMs,
    expiresAtMs,
  };
  if (!Object.hasOwn(o, 'nonce')) return statement;
  if (!isNonce(o.nonce)) malformed('nonce is not 16 to 64 base64url characters');
  return { ...statement, nonce: o.nonce };
}

/** Serialises a statement to the exact bytes that get signed (fields in a fixed order). */
export function encodeFreshness(statement: FreshnessStatement): Uint8Array {
  const { release_sha256, keys_version, sequence, issued_at, expires_at, nonce } = statement;
  return new TextEncoder().encode(
    JSON.stringify({
      release_sha256,
      keys_version,
      sequence,
      issued_at,
      expires_at,
      ...(nonce === undefined ? {} : { nonce }),
    }),
  );
}
