/**
 * HTTP plumbing shared by the OAuth routes: the scoped body parser (every content type is read
 * as text, capped at `bodyLimitBytes`, and parsed per endpoint) and the scope's error handler,
 * which answers every refusal as an OAuthError (RFC-shaped body with `Cache-Control: no-store`,
 * RFC 6749 §5.1/§5.2, docs/OAUTH.md §The rules, T-23/T-27) and turns body-size and parse errors into 400
 * invalid_request (T-02).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendServerError } from '../http/send-error.js';
import { OAuthError } from './oauth-error.js';
import type { RawBody } from './oauth-params.js';

/** RFC 6749 §5.1: token responses and errors must not be cached. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
}

/** The body text and content type the scoped parser left on the request. */
export function rawBodyOf(request: FastifyRequest): RawBody {
  return {
    contentType: request.headers['content-type'],
    text: typeof request.body === 'string' ? request.body : undefined,
  };
}

/** The Authorization header, once (a repeated header is not a string and counts as absent). */
export function authorizationOf(request: FastifyRequest): string | undefined {
  const h = request.headers.authorization;
  return typeof h === 'string' ? h : undefined;
}

/**
 * Installs the scope's parsers and error handler. Call inside an encapsulated plugin only: it
 * replaces every content-type parser of that scope.
 */
export function installOAuthScope(scope: FastifyInstance, bodyLimitBytes: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: bodyLimitBytes },
    (_req, body, done) => done(null, body),
  );
  scope.setErrorHandler((error: FastifyError, request, reply) =>
    sendServerError(reply, asOAuthRefusal(error, bodyLimitBytes, request)),
  );
}

/** Whatever went wrong in the scope, as the OAuth refusal it is answered with (T-02). */
function asOAuthRefusal(
  error: FastifyError,
  bodyLimitBytes: number,
  request: FastifyRequest,
): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const msg = `body exceeds ${bodyLimitBytes} bytes`;
    return new OAuthError('invalid_request', 'BODY_TOO_LARGE', msg);
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    const msg = 'request body could not be read';
    return new OAuthError('invalid_request', 'BODY_MALFORMED', msg);
  }
  request.log.error({ err: error }, 'oauth route failed');
  return new OAuthError('server_error', 'INTERNAL', 'internal error', 500, false, {
    cause: error,
  });
}
