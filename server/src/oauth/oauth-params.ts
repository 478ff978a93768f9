/**
 * Request parameters of the OAuth endpoints, from JSON (the interface) or
 * application/x-www-form-urlencoded (RFC 6749 §4.1.3, what RP libraries send). Values are never
 * coerced: a non-string is malformed (docs/OAUTH.md §The rules, T-05), an empty string means omitted (RFC 6749
 * §3.1, T-04), a repeated form parameter is refused (RFC 6749 §3.1, T-07).
 */
import { invalidRequest } from './oauth-error.js';

/** Parsed parameters: a null-prototype record, so `__proto__` and friends are plain keys. */
export type OAuthParams = Readonly<Record<string, unknown>>;

/** The raw request body as the scoped content-type parser left it. */
export interface RawBody {
  readonly contentType: string | undefined;
  readonly text: string | undefined;
}

/** The media type without parameters, lower-cased (RFC 9110 §8.3.1). */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const base = contentType.split(';', 1)[0]?.trim().toLowerCase();
  return base === '' ? undefined : base;
}

/**
 * Parses a token/introspection body. Only JSON and form bodies are accepted; a missing body is
 * an empty parameter set (the grant checks then name the missing field).
 */
export function parseOAuthBody(raw: RawBody): OAuthParams {
  const type = mediaType(raw.contentType);
  const text = raw.text ?? '';
  if (type === undefined && text === '') return Object.create(null) as OAuthParams;
  if (type === 'application/x-www-form-urlencoded') return parseForm(text);
  if (type === 'application/json') return parseJson(text);
  throw invalidRequest(
    'UNSUPPORTED_CONTENT_TYPE',
    'Content-Type must be application/json or application/x-www-form-urlencoded',
  );
}

/** Form parameters; a name sent twice is refused (RFC 6749 §3.1). */
export function parseForm(text: string): OAuthParams {
  const out = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(out, name)) {
      throw invalidRequest('DUPLICATE_PARAMETER', `parameter ${safeName(name)} is repeated`);
    }
    out[name] = value;
  }
  return out;
}

function parseJson(text: string): OAuthParams {
  let value: unknown;
  try {
    value = JSON.parse(text === '' ? '{}' : text);
  } catch {
    throw invalidRequest('BODY_MALFORMED', 'body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest('BODY_MALFORMED', 'body must be a JSON object');
  }
  const out = Object.create(null) as Record<string, unknown>;
  for (const [name, v] of Object.entries(value)) out[name] = v;
  return out;
}

/**
 * A string parameter, or undefined when absent or empty (RFC 6749 §3.1: "Parameters sent
 * without a value MUST be treated as if they were omitted"). Any other type is refused.
 */
export function optionalString(params: OAuthParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') {
    throw invalidRequest('PARAMETER_NOT_STRING', `${name} must be a string`);
  }
  return value;
}

/** A required string parameter (missing or empty: 400 invalid_request). */
export function requiredString(params: OAuthParams, name: string): string {
  const value = optionalString(params, name);
  if (value === undefined) throw invalidRequest('PARAMETER_MISSING', `${name} is required`);
  return value;
}

/** Names echoed in messages are clipped and printable, so a hostile name cannot fill logs. */
function safeName(name: string): string {
  return JSON.stringify(name.slice(0, 40).replace(/[^\x20-\x7e]/g, '?'));
}
