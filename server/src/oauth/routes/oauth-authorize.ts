/**
 * GET /api/oauth/authorize (RFC 6749 §4.1.1) and the login page's POST /api/oauth/login. Rules
 * in server/src/oauth/login/authorize.ts and login.ts. The raw query string is parsed there, so
 * repeated parameters are seen (RFC 6749 §3.1). The page binds itself to the browser with an
 * HttpOnly, SameSite=Strict cookie scoped to /api/oauth (pending-logins.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorize } from '../login/authorize.js';
import { OAUTH_PATHS } from '../discovery.js';
import { completeLogin } from '../login/login.js';
import { pageHeaders, renderLoginPage } from '../login/login-page.js';
import { noStore, rawBodyOf } from '../oauth-http.js';
import { parseOAuthBody } from '../oauth-params.js';
import type { OAuthState } from '../oauth-state.js';
import { LOGIN_COOKIE, LOGIN_TTL_MS } from '../login/pending-logins.js';

/** The login cookie's value, when the browser sent exactly one. */
export function loginCookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  const values = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${LOGIN_COOKIE}=`))
    .map((pair) => pair.slice(LOGIN_COOKIE.length + 1));
  return values.length === 1 ? values[0] : undefined;
}

export function registerOAuthAuthorize(scope: FastifyInstance, state: OAuthState): void {
  const subjects = (): string[] => [...state.claims.subjects.keys()];
  scope.get(OAUTH_PATHS.authorize, (request, reply) => {
    const url = request.raw.url ?? '';
    const q = url.indexOf('?');
    const outcome = authorize(state, q < 0 ? '' : url.slice(q + 1), loginCookieOf(request));
    // A refusal goes to the scope's error handler, which answers every OAuthError.
    if (outcome.kind === 'refuse') throw outcome.error;
    if (outcome.kind === 'redirect') {
      return noStore(reply).code(302).header('Location', outcome.location).send();
    }
    const maxAge = Math.floor(LOGIN_TTL_MS / 1000);
    return reply
      .code(200)
      .headers(pageHeaders(outcome.redirectUri))
      .header(
        'set-cookie',
        `${LOGIN_COOKIE}=${outcome.browser}; Path=/api/oauth; Max-Age=${maxAge}; HttpOnly; SameSite=Strict`,
      )
      .send(renderLoginPage(outcome, subjects()));
  });

  scope.post(
    OAUTH_PATHS.login,
    { bodyLimit: state.limits.bodyLimitBytes },
    (request, reply): FastifyReply => {
      const params = parseOAuthBody(rawBodyOf(request));
      const outcome = completeLogin(state, params, loginCookieOf(request));
      if (outcome.kind === 'refuse') throw outcome.error;
      if (outcome.kind === 'redirect') {
        // 303: the browser follows a form POST with a GET (RFC 9110 §15.4.4).
        return noStore(reply).code(303).header('Location', outcome.location).send();
      }
      return reply
        .code(200)
        .headers(pageHeaders(outcome.redirectUri))
        .send(renderLoginPage(outcome, subjects()));
    },
  );
}
