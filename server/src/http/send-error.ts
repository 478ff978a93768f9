/**
 * Sends the one error body of the service (interface §2, §7) with Content-Type
 * application/json. Every non-2xx answer of the foundation goes through here.
 */
import type { FastifyReply } from 'fastify';
import { errorBody } from '../../../src/protocol/index.js';

/** Answers `status` with `{"ok": false, "error": message, "code": code}`. */
export function sendError(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): FastifyReply {
  return reply
    .code(status)
    .headers(headers)
    .type('application/json; charset=utf-8')
    .send(errorBody(code, message));
}
