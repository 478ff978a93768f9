/**
 * GET /.well-known/openid-configuration (OIDC Discovery §4). Document in oauth/discovery.ts.
 */
import type { FastifyInstance } from 'fastify';
import { discoveryDocument, OAUTH_PATHS } from '../discovery.js';
import type { OAuthState } from '../oauth-state.js';

export function registerOAuthDiscovery(scope: FastifyInstance, state: OAuthState): void {
  scope.get(OAUTH_PATHS.discovery, (_request, reply) =>
    reply.code(200).type('application/json').send(discoveryDocument(state)),
  );
}
