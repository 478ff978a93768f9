/**
 * POST /api/oauth/login: the login page's form (docs/PROTOCOL.md §4.5). The one-time value
 * names an authorization request that GET /api/oauth/authorize validated and held
 * (pending-logins.ts); the browser's binding cookie must match it. Approving issues the code
 * bound to the chosen subject and extra claims and redirects like the authorization endpoint;
 * denying redirects with `access_denied`. A bad subject or claims text shows the form again with
 * the reason; an unknown, used, expired or unbound request is a 400 error body.
 */
import { asOAuthError, redirect } from './authorize.js';
import { parseClaimsText } from '../tokens/claims.js';
import { requireClient, requireRedirect, toCodeBinding } from './code-request.js';
import { invalidRequest, OAuthError } from '../oauth-error.js';
import type { OAuthParams } from '../oauth-params.js';
import { optionalString } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';

/** What the login page shows (again, with `error`, after a bad subject or claims text). */
export interface LoginView {
  readonly loginId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly subject?: string;
  readonly claimsText?: string;
  readonly error?: string;
}

export type LoginOutcome =
  | { readonly kind: 'redirect'; readonly location: string }
  | ({ readonly kind: 'retry' } & LoginView)
  | { readonly kind: 'refuse'; readonly error: OAuthError };

/** Handles the posted form; `browser` is the binding cookie the browser sent. Never throws. */
type HeldLogin = Exclude<ReturnType<OAuthState['logins']['find']>, 'unknown' | 'not-bound'>;

/** The held request the form names, posted from the browser it was shown in. */
function findLogin(
  state: OAuthState,
  params: OAuthParams,
  browser: string | undefined,
): { id: string; found: HeldLogin } {
  const loginId = optionalString(params, 'login_id');
  const found = state.logins.find(loginId, browser, state.clock.now());
  if (found === 'unknown') {
    throw invalidRequest(
      'LOGIN_REQUEST_UNKNOWN',
      'the login request is unknown, used or expired: start again at the authorization endpoint',
    );
  }
  if (found === 'not-bound') {
    throw invalidRequest(
      'LOGIN_NOT_BOUND',
      'the login form was not posted from the browser it was shown in',
    );
  }
  return { id: loginId as string, found };
}

export function completeLogin(
  state: OAuthState,
  params: OAuthParams,
  browser: string | undefined,
): LoginOutcome {
  try {
    const { id, found } = findLogin(state, params, browser);
    const action = optionalString(params, 'action');
    if (action !== 'approve' && action !== 'deny') {
      throw invalidRequest('PARAMETER_MALFORMED', 'action must be approve or deny');
    }
    const client = requireClient(state, found.clientId);
    const redirectUri = requireRedirect(client, found.redirectUri);
    const respond = { state: found.state, iss: state.issuer() };
    if (action === 'deny') {
      state.logins.consume(id);
      return redirect(redirectUri, {
        error: 'access_denied',
        error_description: 'the tester denied the request on the login page',
        ...respond,
      });
    }
    const subject = optionalString(params, 'subject') ?? '';
    const claimsText = optionalString(params, 'claims') ?? '';
    const view: LoginView = {
      loginId: id,
      clientId: client.id,
      redirectUri,
      scope: found.scope,
      subject,
      claimsText,
    };
    const claims = parseClaimsText(claimsText);
    if (typeof claims === 'string') return { kind: 'retry', ...view, error: claims };
    if (subject === '') return { kind: 'retry', ...view, error: 'a subject is required' };
    let binding;
    try {
      binding = toCodeBinding(state, client, redirectUri, {
        scope: found.scope,
        nonce: found.nonce,
        subject,
        codeChallenge: found.codeChallenge,
        codeChallengeMethod: found.codeChallengeMethod,
        claims: Object.keys(claims).length === 0 ? undefined : claims,
      });
    } catch (error) {
      if (error instanceof OAuthError && error.code === 'SUBJECT_INVALID') {
        return { kind: 'retry', ...view, error: error.message };
      }
      throw error;
    }
    state.logins.consume(id);
    const { code } = state.codes.issue(binding, state.clock.now());
    return redirect(redirectUri, { code, ...respond });
  } catch (error) {
    return { kind: 'refuse', error: asOAuthError(error) };
  }
}
