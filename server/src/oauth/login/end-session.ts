/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), GET and POST
 * /api/oauth/end-session. `id_token_hint` must be an ID token this server signed for a
 * registered client (its signature and `iss` are checked; an expired one is accepted, §2);
 * `post_logout_redirect_uri` must be registered exactly in that client's
 * `post_logout_redirect_uris` (client from the hint or `client_id`), and the browser is sent
 * there with `state`; without one, a signed-out page is shown. With a valid hint every grant of
 * that subject at that client is revoked, so its refresh and access tokens stop working. A bad
 * hint or URI is a 400 error body, never a redirect.
 */
import { createHmac } from 'node:crypto';
import { redirect } from './authorize.js';
import type { OAuthClient } from '../clients.js';
import { constantTimeEqual } from '../constant-time.js';
import { ID_TOKEN_HEADER } from '../tokens/id-token.js';
import { invalidRequest } from '../oauth-error.js';
import type { OAuthParams } from '../oauth-params.js';
import { optionalString } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';
import { idTokenKey } from '../tokens/token-issuer.js';

export type EndSessionOutcome =
  | { readonly kind: 'redirect'; readonly location: string; readonly revoked: number }
  | { readonly kind: 'page'; readonly revoked: number };

/** Bound on an id_token_hint (ID tokens carry up to 8 KiB of extra claims). */
const MAX_HINT_CHARS = 16_384;

const badHint = () =>
  invalidRequest('ID_TOKEN_HINT_INVALID', 'id_token_hint is not an ID token this server issued');

/** The client and subject of an ID token this server signed (throws ID_TOKEN_HINT_INVALID). */
function verifyHint(state: OAuthState, hint: string): { client: OAuthClient; subject: string } {
  if (hint.length > MAX_HINT_CHARS) throw badHint();
  const [header, payload, signature, ...rest] = hint.split('.');
  if (header !== ID_TOKEN_HEADER || payload === undefined || signature === undefined) {
    throw badHint();
  }
  if (rest.length > 0) throw badHint();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw badHint();
  }
  if (typeof parsed !== 'object' || parsed === null) throw badHint();
  const claims = parsed as Record<string, unknown>;
  const aud = claims['aud'];
  const sub = claims['sub'];
  if (typeof aud !== 'string' || typeof sub !== 'string') throw badHint();
  if (claims['iss'] !== state.issuer()) throw badHint();
  const client = state.clients.get(aud);
  if (client === undefined) throw badHint();
  const expected = createHmac('sha256', idTokenKey(state, client))
    .update(`${header}.${payload}`)
    .digest('base64url');
  if (!constantTimeEqual(expected, signature)) throw badHint();
  return { client, subject: sub };
}

/** Ends the session the parameters name. Throws OAuthError on a bad hint or URI. */
export function endSession(state: OAuthState, params: OAuthParams): EndSessionOutcome {
  const hint = optionalString(params, 'id_token_hint');
  const clientId = optionalString(params, 'client_id');
  const target = optionalString(params, 'post_logout_redirect_uri');
  const stateParam = optionalString(params, 'state');
  if (stateParam !== undefined && stateParam.length > state.limits.maxParamChars) {
    throw invalidRequest('PARAMETER_MALFORMED', 'state is too long');
  }
  const verified = hint === undefined ? undefined : verifyHint(state, hint);
  if (verified !== undefined && clientId !== undefined && clientId !== verified.client.id) {
    throw invalidRequest('CLIENT_MISMATCH', 'client_id differs from the audience of the hint');
  }
  const client =
    verified?.client ?? (clientId === undefined ? undefined : state.clients.get(clientId));
  if (target !== undefined) {
    if (client === undefined) {
      throw invalidRequest(
        'PARAMETER_MISSING',
        'post_logout_redirect_uri needs id_token_hint or a registered client_id',
      );
    }
    if (!client.postLogoutRedirectUris.includes(target)) {
      throw invalidRequest(
        'POST_LOGOUT_REDIRECT_URI_UNREGISTERED',
        'post_logout_redirect_uri is not registered for the client',
      );
    }
  }
  const revoked =
    verified === undefined ? 0 : state.grants.revokeSubject(verified.client.id, verified.subject);
  if (target === undefined) return { kind: 'page', revoked };
  return { ...redirect(target, { state: stateParam }), revoked };
}
