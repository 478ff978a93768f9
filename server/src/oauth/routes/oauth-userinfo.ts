/**
 * GET and POST /api/oauth/userinfo (OIDC Core §5.3, RFC 6750). Rules in
 * server/src/oauth/tokens/userinfo.ts; a POST body is not read for a token (the header only).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAUTH_PATHS } from '../discovery.js';
import { authorizationOf, noStore } from '../oauth-http.js';
import type { OAuthState } from '../oauth-state.js';
import { userinfo } from '../tokens/userinfo.js';

export function registerOAuthUserinfo(scope: FastifyInstance, state: OAuthState): void {
  const handler = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    noStore(reply)
      .code(200)
      .type('application/json')
      .send(userinfo(state, authorizationOf(request)));
  scope.get(OAUTH_PATHS.userinfo, handler);
  scope.post(OAUTH_PATHS.userinfo, { bodyLimit: state.limits.bodyLimitBytes }, handler);
}
