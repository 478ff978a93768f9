/**
 * POST /api/oauth/revoke (docs/INTERFACE.md §4.1, RFC 7009). Always 200 `{"ok": true}`, whatever the
 * body (docs/OAUTH.md §The rules, R-01, R-08, R-09): its own error handler turns even oversize or unreadable
 * bodies into the same answer.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { OAUTH_PATHS } from '../discovery.js';
import { noStore, rawBodyOf } from '../oauth-http.js';
import type { OAuthParams } from '../oauth-params.js';
import { parseOAuthBody } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';
import { revokeToken } from '../tokens/revocation.js';

const OK = { ok: true } as const;

export function registerOAuthRevoke(scope: FastifyInstance, state: OAuthState): void {
  const ok = (reply: FastifyReply): FastifyReply => noStore(reply).code(200).send(OK);
  scope.post(
    OAUTH_PATHS.revoke,
    {
      bodyLimit: state.limits.bodyLimitBytes,
      errorHandler: (error, request, reply) => {
        request.log.debug({ err: error }, 'revoke: unreadable body answered 200');
        void ok(reply);
      },
    },
    async (request, reply) => {
      let params: OAuthParams;
      try {
        params = parseOAuthBody(rawBodyOf(request));
      } catch {
        return ok(reply); // malformed or foreign bodies are a no-op
      }
      await revokeToken(state, request.headers.authorization, params);
      return ok(reply);
    },
  );
}
