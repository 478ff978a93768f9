/**
 * Scope strings (RFC 6749 §3.3): space-delimited, case-sensitive NQCHAR tokens.
 */
import { OAuthError } from './oauth-error.js';

const TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Splits and validates a scope string; a malformed one is invalid_scope. Order kept, no dups. */
export function parseScope(scope: string): string[] {
  const parts = scope.split(' ');
  if (parts.some((p) => !TOKEN.test(p))) {
    throw new OAuthError('invalid_scope', 'SCOPE_INVALID', 'scope is malformed (RFC 6749 §3.3)');
  }
  return [...new Set(parts)];
}

/** Refuses any requested scope outside `allowed` (RFC 6749 §6: a refresh must not widen). */
export function requireSubset(requested: readonly string[], allowed: readonly string[]): void {
  const extra = requested.filter((s) => !allowed.includes(s));
  if (extra.length > 0) {
    throw new OAuthError('invalid_scope', 'SCOPE_WIDENED', 'scope exceeds what was granted');
  }
}
