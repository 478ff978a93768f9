/**
 * GET /api/oauth/authorize (RFC 6749 §4.1.1). Rules in server/src/oauth/authorize.ts. The raw
 * query string is parsed there, so repeated parameters are seen (RFC 6749 §3.1).
 */
import type { FastifyInstance } from 'fastify';
import { authorize } from '../oauth/authorize.js';
import { OAUTH_PATHS } from '../oauth/discovery.js';
import { noStore } from '../oauth/oauth-http.js';
import type { OAuthState } from '../oauth/oauth-state.js';

export function registerOAuthAuthorize(scope: FastifyInstance, state: OAuthState): void {
  scope.get(OAUTH_PATHS.authorize, (request, reply) => {
    const url = request.raw.url ?? '';
    const q = url.indexOf('?');
    const outcome = authorize(state, q < 0 ? '' : url.slice(q + 1));
    // A refusal goes to the scope's error handler, which answers every OAuthError.
    if (outcome.kind === 'refuse') throw outcome.error;
    return noStore(reply).code(302).header('Location', outcome.location).send();
  });
}
