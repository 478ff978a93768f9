/**
 * POST /api/oauth/introspect (RFC 7662). Rules in server/src/oauth/tokens/introspection.ts.
 */
import type { FastifyInstance } from 'fastify';
import { OAUTH_PATHS } from '../discovery.js';
import { introspectToken } from '../tokens/introspection.js';
import { authorizationOf, noStore, rawBodyOf } from '../oauth-http.js';
import { parseOAuthBody } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';

export function registerOAuthIntrospect(scope: FastifyInstance, state: OAuthState): void {
  const opts = { bodyLimit: state.limits.bodyLimitBytes };
  scope.post(OAUTH_PATHS.introspect, opts, async (request, reply) => {
    noStore(reply);
    const params = parseOAuthBody(rawBodyOf(request));
    const body = await introspectToken(state, authorizationOf(request), params);
    return reply.code(200).type('application/json').send(body);
  });
}
