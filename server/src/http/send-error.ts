/**
 * Sends the one error body of the service (docs/INTERFACE.md §2, §7) with Content-Type
 * application/json. Every non-2xx answer of the server goes through here.
 */
import type { FastifyReply } from 'fastify';
import { errorBody } from '#protocol';
import type { ServerError } from '../server-error.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Answers `status` with `{"ok": false, "error": message, "code": code}`. */
export function sendError(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): FastifyReply {
  return reply.code(status).headers(headers).type(JSON_TYPE).send(errorBody(code, message));
}

/** Answers a refusal with its own status, headers and body (docs/ARCHITECTURE.md §Server). */
export function sendServerError(reply: FastifyReply, error: ServerError): FastifyReply {
  return reply.code(error.statusCode).headers(error.headers).type(JSON_TYPE).send(error.body());
}
