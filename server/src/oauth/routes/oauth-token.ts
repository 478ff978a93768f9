/**
 * POST /api/oauth/token (docs/INTERFACE.md §4.2; RFC 6749 §3.2, §4.1.3, §6). The rules live in
 * server/src/oauth/grants/token-endpoint.ts.
 */
import type { FastifyInstance } from 'fastify';
import { OAUTH_PATHS } from '../discovery.js';
import { authorizationOf, noStore, rawBodyOf } from '../oauth-http.js';
import { parseOAuthBody } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';
import { handleTokenRequest } from '../grants/token-endpoint.js';

export function registerOAuthToken(scope: FastifyInstance, state: OAuthState): void {
  scope.post(
    OAUTH_PATHS.token,
    { bodyLimit: state.limits.bodyLimitBytes },
    async (request, reply) => {
      noStore(reply); // T-27: set first, so every answer carries it
      const params = parseOAuthBody(rawBodyOf(request));
      const body = await handleTokenRequest(state, authorizationOf(request), params);
      return reply.code(200).type('application/json').send(body);
    },
  );
}
