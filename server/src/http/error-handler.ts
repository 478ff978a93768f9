/**
 * The global error and not-found handlers (docs/ARCHITECTURE.md §Server, "The error path"). A
 * ServerError is answered with its own status, headers and body; Fastify's own FST_ERR_*
 * errors are mapped to 4xx error bodies with stable codes, so bad input never yields a 5xx;
 * anything unexpected is a 500 INTERNAL without a stack (the stack goes to the log).
 * Encapsulated plugins (OAuth) may set their own handlers; Fastify then uses theirs.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerErrorCode } from '#protocol';
import { isServerError } from '../server-error.js';
import type { RouteTable } from './route-table.js';
import { sendError, sendServerError } from './send-error.js';

interface Mapped {
  readonly status: number;
  readonly code: ServerErrorCode;
  readonly message: string;
}

// Fastify's error codes (fastify/lib/errors.js) that bad input can produce.
const FASTIFY_CODES: Readonly<Record<string, Omit<Mapped, 'message'>>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'BODY_TOO_LARGE' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'BAD_CONTENT_LENGTH' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'MALFORMED_JSON' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'MALFORMED_JSON' },
  FST_ERR_CTP_INVALID_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_CTP_EMPTY_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  FST_ERR_BAD_URL: { status: 400, code: 'BAD_URL' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, code: 'BAD_REQUEST' },
  FST_ERR_VALIDATION: { status: 400, code: 'INVALID_REQUEST' },
};

const INTERNAL: Mapped = { status: 500, code: 'INTERNAL', message: 'internal error' };

/** A full disk or an exhausted quota (docs/SERVER.md §Faults): the operator can free space. */
const NO_SPACE: Mapped = {
  status: 507,
  code: 'INSUFFICIENT_STORAGE',
  message: "the server's disk is full: nothing was stored; retry once space is freed",
};
const NO_SPACE_ERRNOS = new Set(['ENOSPC', 'EDQUOT']);

/** True when `error` or a cause below it (at most 5 deep) is a full-disk errno. */
export function isNoSpace(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NO_SPACE_ERRNOS.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Maps any thrown value to a status, code and client-safe message. */
export function mapError(error: unknown): Mapped {
  if (isNoSpace(error)) return NO_SPACE;
  if (isServerError(error)) {
    // A refusal without a client status (a start-up error) reaching a route is a bug.
    if (error.statusCode >= 500) return INTERNAL;
    return { status: error.statusCode, code: error.code, message: error.message };
  }
  const e = error as Partial<FastifyError> & { status?: number };
  const known = typeof e.code === 'string' ? FASTIFY_CODES[e.code] : undefined;
  if (known !== undefined) return { ...known, message: clientMessage(e, known.code) };
  const status = typeof e.statusCode === 'number' ? e.statusCode : e.status;
  // A JSON syntax error from the body parser carries statusCode 400 (and often no code).
  if (e instanceof SyntaxError || (e.name === 'SyntaxError' && status === 400)) {
    return { status: 400, code: 'MALFORMED_JSON', message: 'the body is not valid JSON' };
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, code: 'BAD_REQUEST', message: clientMessage(e, 'BAD_REQUEST') };
  }
  return INTERNAL;
}

function clientMessage(e: Partial<FastifyError>, code: ServerErrorCode): string {
  const m = typeof e.message === 'string' && e.message.length > 0 ? e.message : code;
  return m.length > 300 ? `${m.slice(0, 300)}...` : m;
}

/** Installs the error handler and the not-found handler (404 NOT_FOUND or 405). */
export function installErrorHandlers(app: FastifyInstance, routes: RouteTable): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const mapped = mapError(error);
    if (mapped.status === 507) request.log.error({ err: error }, 'the disk is full');
    else if (mapped.status >= 500) request.log.error({ err: error }, 'unexpected error');
    if (reply.sent || reply.raw.headersSent) {
      // Nothing can be answered any more; cut the connection so the client sees a failure.
      reply.raw.destroy();
      return;
    }
    if (isServerError(error) && mapped.status === error.statusCode) {
      return sendServerError(reply, error);
    }
    return sendError(reply, mapped.status, mapped.code, mapped.message);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    const allowed = routes.allowedMethods(path);
    if (allowed.length > 0) {
      return sendError(
        reply,
        405,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on this path`,
        {
          allow: allowed.join(', '),
        },
      );
    }
    return sendError(reply, 404, 'NOT_FOUND', 'no such route');
  });
}
