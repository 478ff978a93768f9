/**
 * GET /api/oauth/authorize (RFC 6749 §4.1.1): approves at once as the subject in `login_hint`
 * (or the demo user), for QA. Errors follow RFC 6749 §4.1.2.1: an unknown client or a bad
 * redirect URI is a 400 error body (never redirect to an unverified URI); every other error is
 * redirected with `error`, `error_description`, `state` and `iss` (RFC 9207).
 */
import { requireClient, requireRedirect, toCodeBinding } from './code-request.js';
import { invalidRequest, OAuthError } from './oauth-error.js';
import type { OAuthState } from './oauth-state.js';

export type AuthorizeOutcome =
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'refuse'; readonly error: OAuthError };

/** Handles the raw query string of an authorization request. Never throws. */
export function authorize(state: OAuthState, query: string): AuthorizeOutcome {
  const params = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [k, v] of new URLSearchParams(query)) {
    if (params.has(k)) repeated.add(k);
    if (v !== '') params.set(k, v); // RFC 6749 §3.1: empty means omitted
  }
  let redirectUri: string;
  try {
    if (repeated.has('client_id') || repeated.has('redirect_uri')) {
      throw invalidRequest('DUPLICATE_PARAMETER', 'client_id or redirect_uri is repeated');
    }
    const client = requireClient(state, params.get('client_id'));
    redirectUri = requireRedirect(client, params.get('redirect_uri'));
    const stateParam = repeated.has('state') ? undefined : params.get('state');
    try {
      if (repeated.size > 0) {
        throw invalidRequest('DUPLICATE_PARAMETER', 'a parameter is repeated (RFC 6749 §3.1)');
      }
      const responseType = params.get('response_type');
      if (responseType === undefined) {
        throw invalidRequest('PARAMETER_MISSING', 'response_type is required');
      }
      if (responseType !== 'code') {
        const msg = 'only response_type=code is supported';
        throw new OAuthError('unsupported_response_type', 'RESPONSE_TYPE_UNSUPPORTED', msg);
      }
      if (stateParam !== undefined && stateParam.length > state.limits.maxParamChars) {
        throw invalidRequest('PARAMETER_MALFORMED', 'state is too long');
      }
      const binding = toCodeBinding(state, client, redirectUri, {
        scope: params.get('scope'),
        nonce: params.get('nonce'),
        subject: params.get('login_hint'),
        codeChallenge: params.get('code_challenge'),
        codeChallengeMethod: params.get('code_challenge_method'),
      });
      const { code } = state.codes.issue(binding, state.clock.now());
      return redirect(redirectUri, { code, state: stateParam, iss: state.issuer() });
    } catch (err) {
      const e = asOAuthError(err);
      return redirect(redirectUri, {
        error: e.error,
        error_description: e.message,
        state: stateParam,
        iss: state.issuer(),
      });
    }
  } catch (err) {
    return { kind: 'refuse', error: asOAuthError(err) };
  }
}

function redirect(uri: string, fields: Record<string, string | undefined>): AuthorizeOutcome {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) url.searchParams.set(k, v);
  return { kind: 'redirect', location: url.toString() };
}

function asOAuthError(err: unknown): OAuthError {
  if (err instanceof OAuthError) return err;
  return new OAuthError('server_error', 'INTERNAL', 'internal error', 400, false, { cause: err });
}
