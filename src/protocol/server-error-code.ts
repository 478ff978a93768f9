/**
 * Every stable `code` the companion server puts in an error body (docs/PROTOCOL.md §1), and the
 * codes of its start-up failure line, in one table. The server's errors extend one base whose
 * `code` is a `ServerErrorCode` (docs/ARCHITECTURE.md §Server); clients compare against the
 * `ServerErrorCode` constants instead of retyping strings. A new code here is a wire change:
 * document it in docs/PROTOCOL.md in the section of its area.
 * @example if (body.code === ServerErrorCode.SUBSCRIPTION_INACTIVE) { ... }
 */
import type { ProtocolErrorCode } from './protocol-error.js';
import type { TrustErrorCode } from './trust-error.js';

/** Request and body policy, any route (docs/PROTOCOL.md §1). */
const HTTP_CODES = [
  'BAD_REQUEST',
  'BAD_URL',
  'BAD_CONTENT_LENGTH',
  'BODY_TOO_LARGE',
  'HEADERS_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'UNSUPPORTED_MEDIA_TYPE',
  'MALFORMED_JSON',
  'INVALID_BODY',
  'INVALID_REQUEST',
  'UNKNOWN_FIELD',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'DUPLICATE_HOST',
  'SERVER_BUSY',
  'RATE_LIMITED',
  'INSUFFICIENT_STORAGE',
  'INTERNAL',
] as const;

/** Wire-format refusals of src/protocol, passed through by the publisher (docs/PROTOCOL.md §2). */
const WIRE_FORMAT_CODES = [
  'ENVELOPE_MALFORMED',
  'MANIFEST_MALFORMED',
  'UNSAFE_NAME',
  'DUPLICATE_NAME',
  'UNSORTED_NAMES',
  'BAD_DIGEST',
  'BAD_VERSION',
  'BAD_KEY',
] as const satisfies readonly ProtocolErrorCode[];

/** Signature-role refusals of src/protocol, passed through by publish (docs/PROTOCOL.md §2.7). */
const TRUST_CODES = [
  'WRONG_PAYLOAD_TYPE',
  'SIGNATURE_INVALID',
  'UNKNOWN_KEY',
  'KEY_RETIRED',
  'THRESHOLD_NOT_MET',
  'KEY_CHAIN_GAP',
] as const satisfies readonly TrustErrorCode[];

/** Machine keys, manifests, artifacts and publishing (docs/PROTOCOL.md §2, §3). */
const UPDATES_CODES = [
  'MISSING_MACHINE_KEY',
  'INVALID_MACHINE_KEY',
  'SUBSCRIPTION_INACTIVE',
  'MACHINE_LIMIT_REACHED',
  'MACHINE_NOT_FOUND',
  'INVALID_MACHINE_ID',
  'INVALID_SUBSCRIPTION',
  'INVALID_LABEL',
  'NO_RELEASE',
  'ARTIFACT_NOT_FOUND',
  'RANGE_NOT_SATISFIABLE',
  'INVALID_VERSION',
  'VERSION_NOT_INCREASING',
  'INVALID_EXPIRY',
  'INVALID_ARTIFACTS',
  'INVALID_ARTIFACT_BASE_URL',
  'INVALID_BASE64',
  'FOLDER_NOT_FOUND',
  'UNSUPPORTED_FILE',
  // format 2 (docs/PROTOCOL.md §2.7.6, §2.7.8)
  'INVALID_NONCE',
  'INVALID_BUNDLE',
  'ARTIFACT_MISMATCH',
  'RELEASE_KEY_MISSING',
  'RELEASE_CHANGING',
  'PUBLISH_IN_PROGRESS',
] as const;

/** The test-control API under /api/dev/* (docs/PROTOCOL.md §6). */
const DEV_CODES = [
  'DEV_DISABLED',
  'INVALID_FAULT',
  'TOO_MANY_FAULTS',
  'FAULT_INJECTED',
  'INVALID_ADVANCE',
  'CLOCK_LIMIT',
  'INVALID_QUERY',
] as const;

/** The chain activity area and its dev API (docs/CHAIN.md). */
export const CHAIN_ERROR_CODES = [
  'INVALID_BODY',
  'INVALID_MACHINE_ID',
  'INVALID_NAME',
  'INVALID_VISIBILITY',
  'INVALID_COUNT',
  'INVALID_UNIT',
  'UNIT_IN_FUTURE',
  'UNIT_TOO_OLD',
  'UNKNOWN_MACHINE',
  'TOO_MANY_MACHINES',
] as const;

/**
 * The OAuth area's own codes (docs/OAUTH.md); its bodies also carry the RFC 6749 `error`.
 */
export const OAUTH_ERROR_CODES = [
  'BODY_TOO_LARGE',
  'BODY_MALFORMED',
  'UNSUPPORTED_CONTENT_TYPE',
  'DUPLICATE_PARAMETER',
  'PARAMETER_NOT_STRING',
  'PARAMETER_MISSING',
  'PARAMETER_MALFORMED',
  'GRANT_TYPE_MISSING',
  'GRANT_TYPE_UNSUPPORTED',
  'CLIENT_AUTH_MISSING',
  'CLIENT_AUTH_MULTIPLE',
  'CLIENT_AUTH_MALFORMED',
  'CLIENT_UNKNOWN',
  'CLIENT_SECRET_INVALID',
  'CLIENT_MISMATCH',
  'CODE_UNKNOWN',
  'CODE_EXPIRED',
  'CODE_REUSED',
  'CODE_OTHER_CLIENT',
  'REDIRECT_URI_MISMATCH',
  'REDIRECT_URI_MISSING',
  'REDIRECT_URI_UNREGISTERED',
  'PKCE_VERIFIER_MALFORMED',
  'PKCE_VERIFIER_MISSING',
  'PKCE_VERIFIER_MISMATCH',
  'PKCE_NOT_BOUND',
  'PKCE_REQUIRED',
  'PKCE_METHOD_UNSUPPORTED',
  'PKCE_CHALLENGE_MALFORMED',
  'REFRESH_TOKEN_INVALID',
  'REFRESH_TOKEN_EXPIRED',
  'REFRESH_TOKEN_REVOKED',
  'REFRESH_TOKEN_REUSED',
  'REFRESH_TOKEN_OTHER_CLIENT',
  'SCOPE_INVALID',
  'SCOPE_WIDENED',
  'RESPONSE_TYPE_UNSUPPORTED',
  'SUBJECT_INVALID',
  'CLIENT_SECRET_TOO_SHORT',
  // the login page, userinfo and RP-initiated logout (docs/PROTOCOL.md §4.5, §4.14, §4.15)
  'CLAIMS_INVALID',
  'LOGIN_REQUEST_UNKNOWN',
  'LOGIN_NOT_BOUND',
  'ACCESS_TOKEN_MISSING',
  'ACCESS_TOKEN_MALFORMED',
  'ACCESS_TOKEN_INVALID',
  'ACCESS_TOKEN_EXPIRED',
  'ACCESS_TOKEN_REVOKED',
  'SCOPE_INSUFFICIENT',
  'ID_TOKEN_HINT_INVALID',
  'POST_LOGOUT_REDIRECT_URI_UNREGISTERED',
  'INTERNAL',
] as const;

/**
 * Start-up refusals: the `code` of the one JSON line `npm run server` writes to stderr before
 * it exits (docs/SERVER.md). `FAILED` is anything without a code of its own.
 */
const START_CODES = [
  'USAGE',
  'NODE_KEY_INVALID',
  'RELEASE_STORE_INVALID',
  'KEY_CHAIN_INVALID',
  'CLIENT_REGISTRATION_INVALID',
  'CONFIG_INVALID',
  'NODE_KEY_MISSING',
  'STATE_FILE_INVALID',
  'FAILED',
] as const;

/** Every server code, once. */
export const SERVER_ERROR_CODES: readonly ServerErrorCode[] = [
  ...new Set([
    ...HTTP_CODES,
    ...WIRE_FORMAT_CODES,
    ...TRUST_CODES,
    ...UPDATES_CODES,
    ...DEV_CODES,
    ...CHAIN_ERROR_CODES,
    ...OAUTH_ERROR_CODES,
    ...START_CODES,
  ]),
];

export type ServerErrorCode =
  | (typeof HTTP_CODES)[number]
  | (typeof WIRE_FORMAT_CODES)[number]
  | (typeof TRUST_CODES)[number]
  | (typeof UPDATES_CODES)[number]
  | (typeof DEV_CODES)[number]
  | (typeof CHAIN_ERROR_CODES)[number]
  | (typeof OAUTH_ERROR_CODES)[number]
  | (typeof START_CODES)[number];

/** A chain refusal's code. */
export type ChainErrorCode = (typeof CHAIN_ERROR_CODES)[number];
/** An OAuth refusal's own code (the `code` field beside the RFC 6749 `error`). */
export type OAuthStableCode = (typeof OAUTH_ERROR_CODES)[number];

/** The codes by name, for comparisons that a typo cannot break. */
export const ServerErrorCode: { readonly [C in ServerErrorCode]: C } = Object.freeze(
  Object.fromEntries(SERVER_ERROR_CODES.map((c) => [c, c])) as { [C in ServerErrorCode]: C },
);

const KNOWN: ReadonlySet<string> = new Set(SERVER_ERROR_CODES);

/** True when `value` is one of the server's codes (e.g. the `code` of a received error body). */
export function isServerErrorCode(value: string): value is ServerErrorCode {
  return KNOWN.has(value);
}

// Every wire-format code must be listed above: a new ProtocolErrorCode fails the type check here.
type Missing = Exclude<ProtocolErrorCode, (typeof WIRE_FORMAT_CODES)[number]>;
const _allWireFormatCodesListed: Missing extends never ? true : Missing = true;
void _allWireFormatCodesListed;

// Every signature-role code too, so publish can pass a TrustError through unchanged.
type MissingTrust = Exclude<TrustErrorCode, (typeof TRUST_CODES)[number]>;
const _allTrustCodesListed: MissingTrust extends never ? true : MissingTrust = true;
void _allTrustCodesListed;
