/**
 * GET and POST /api/oauth/end-session (OpenID Connect RP-Initiated Logout 1.0 §2). Rules in
 * server/src/oauth/login/end-session.ts: a redirect to the registered post-logout URI, or the
 * signed-out page.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { OAUTH_PATHS } from '../discovery.js';
import { endSession } from '../login/end-session.js';
import { pageHeaders, renderSignedOutPage } from '../login/login-page.js';
import { noStore, rawBodyOf } from '../oauth-http.js';
import type { OAuthParams } from '../oauth-params.js';
import { parseForm, parseOAuthBody } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';

function answer(state: OAuthState, params: OAuthParams, reply: FastifyReply): FastifyReply {
  const outcome = endSession(state, params);
  if (outcome.kind === 'redirect') {
    return noStore(reply).code(302).header('Location', outcome.location).send();
  }
  return reply.code(200).headers(pageHeaders()).send(renderSignedOutPage());
}

export function registerOAuthEndSession(scope: FastifyInstance, state: OAuthState): void {
  scope.get(OAUTH_PATHS.endSession, (request, reply) => {
    const url = request.raw.url ?? '';
    const q = url.indexOf('?');
    return answer(state, parseForm(q < 0 ? '' : url.slice(q + 1)), reply);
  });
  scope.post(OAUTH_PATHS.endSession, { bodyLimit: state.limits.bodyLimitBytes }, (request, reply) =>
    answer(state, parseOAuthBody(rawBodyOf(request)), reply),
  );
}
