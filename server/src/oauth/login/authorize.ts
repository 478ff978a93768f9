/**
 * GET /api/oauth/authorize (RFC 6749 §4.1.1), for QA: approves at once as the subject in
 * `login_hint`; without one, the request is validated in full and then held for the login page
 * (login.ts), where a tester chooses the subject and extra claims. With the login page off
 * (`oauth.login_page: false`) a request without `login_hint` approves at once as `demo-user`.
 * Errors follow RFC 6749 §4.1.2.1: an unknown client or a bad redirect URI is a 400 error body
 * (never redirect to an unverified URI); every other error is redirected with `error`,
 * `error_description`, `state` and `iss` (RFC 9207).
 */
import { requireClient, requireRedirect, toCodeBinding } from './code-request.js';
import { invalidRequest, OAuthError } from '../oauth-error.js';
import type { OAuthState } from '../oauth-state.js';

export type AuthorizeOutcome =
  | { readonly kind: 'redirect'; readonly location: string }
  | {
      readonly kind: 'login';
      /** The one-time value the login form posts back. */
      readonly loginId: string;
      /** The browser binding cookie's value to set (the same one when it already had one). */
      readonly browser: string;
      readonly clientId: string;
      readonly redirectUri: string;
      readonly scope: string;
    }
  | { readonly kind: 'refuse'; readonly error: OAuthError };

/** The query's parameters (empty values omitted, RFC 6749 §3.1) and the names repeated. */
function readQuery(query: string): { params: Map<string, string>; repeated: Set<string> } {
  const params = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [k, v] of new URLSearchParams(query)) {
    if (params.has(k)) repeated.add(k);
    if (v !== '') params.set(k, v);
  }
  return { params, repeated };
}

/** The refusals that are redirected: repeats, response_type, an overlong state. */
function checkRequest(
  state: OAuthState,
  params: ReadonlyMap<string, string>,
  repeated: ReadonlySet<string>,
  stateParam: string | undefined,
): void {
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
}

/** Holds a valid request for the login page. */
function holdForLogin(
  state: OAuthState,
  browser: string | undefined,
  request: { clientId: string; redirectUri: string; stateParam: string | undefined },
  binding: ReturnType<typeof toCodeBinding>,
): AuthorizeOutcome {
  const value = state.logins.browserValue(browser);
  const { clientId, redirectUri } = request;
  const loginId = state.logins.add(
    {
      clientId,
      redirectUri,
      state: request.stateParam,
      scope: binding.scope,
      nonce: binding.nonce,
      codeChallenge: binding.codeChallenge,
      codeChallengeMethod: binding.codeChallenge === undefined ? undefined : 'S256',
    },
    value,
    state.clock.now(),
  );
  return { kind: 'login', loginId, browser: value, clientId, redirectUri, scope: binding.scope };
}

/**
 * Handles the raw query string of an authorization request; `browser` is the login cookie the
 * browser sent, if any. Never throws.
 */
export function authorize(state: OAuthState, query: string, browser?: string): AuthorizeOutcome {
  const { params, repeated } = readQuery(query);
  let redirectUri: string;
  try {
    if (repeated.has('client_id') || repeated.has('redirect_uri')) {
      throw invalidRequest('DUPLICATE_PARAMETER', 'client_id or redirect_uri is repeated');
    }
    const client = requireClient(state, params.get('client_id'));
    redirectUri = requireRedirect(client, params.get('redirect_uri'));
    const stateParam = repeated.has('state') ? undefined : params.get('state');
    try {
      checkRequest(state, params, repeated, stateParam);
      const subject = params.get('login_hint');
      const binding = toCodeBinding(state, client, redirectUri, {
        scope: params.get('scope'),
        nonce: params.get('nonce'),
        subject,
        codeChallenge: params.get('code_challenge'),
        codeChallengeMethod: params.get('code_challenge_method'),
      });
      if (subject === undefined && state.loginPage) {
        return holdForLogin(
          state,
          browser,
          { clientId: client.id, redirectUri, stateParam },
          binding,
        );
      }
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

/** The redirect to a verified URI with the response fields in its query (RFC 6749 §4.1.2). */
export function redirect(
  uri: string,
  fields: Record<string, string | undefined>,
): { readonly kind: 'redirect'; readonly location: string } {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) url.searchParams.set(k, v);
  return { kind: 'redirect', location: url.toString() };
}

export function asOAuthError(err: unknown): OAuthError {
  if (err instanceof OAuthError) return err;
  return new OAuthError('server_error', 'INTERNAL', 'internal error', 400, false, { cause: err });
}
