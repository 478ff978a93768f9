/**
 * The server's one error base (docs/ARCHITECTURE.md §Server, "The error path"). Every refusal,
 * from a route, an area or start-up, is a ServerError: a stable `code` from src/protocol's
 * `ServerErrorCode` table, the HTTP status it is answered with, extra response headers and the
 * cause. The global error handler (http/error-handler.ts) sends `body()` with `headers`; main.ts
 * prints the code on its failure line. Messages never carry secrets, so they are safe to send.
 * @example throw new ServerError('NO_RELEASE', 'nothing is published', { status: 404 });
 */
import type { ErrorBody, ServerErrorCode } from '#protocol';
import { errorBody } from '#protocol';

export interface ServerErrorOptions {
  /**
   * The HTTP status. Without one the error is not meant for a client (a start-up failure);
   * should it reach the handler anyway it is a 500 INTERNAL, and its message stays in the log.
   */
  readonly status?: number;
  /** Response headers that belong to the refusal (WWW-Authenticate, Content-Range, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

export class ServerError<C extends ServerErrorCode = ServerErrorCode> extends Error {
  override readonly name: string = 'ServerError';
  readonly code: C;
  /** The HTTP status this refusal is answered with. */
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: C, message: string, options: ServerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.statusCode = options.status ?? 500;
    this.headers = options.headers ?? {};
  }

  /** The error body it is answered with (docs/PROTOCOL.md §1); OAuth adds RFC 6749 fields. */
  body(): ErrorBody {
    return errorBody(this.code, this.message);
  }
}

/** Narrows an unknown thrown value to a ServerError. */
export function isServerError(value: unknown): value is ServerError {
  return value instanceof ServerError;
}

/**
 * A ServerError class with one fixed code, as Fastify's createError makes its FST_ERR_* classes.
 * Used for the start-up refusals, which have no HTTP status of their own.
 * @example
 *   export const NodeKeyError = errorClass('NodeKeyError', 'NODE_KEY_INVALID');
 *   export type NodeKeyError = InstanceType<typeof NodeKeyError>;
 *   throw new NodeKeyError('the key file is unreadable', { cause });
 */
export function errorClass<C extends ServerErrorCode>(className: string, code: C) {
  const Fixed = class extends ServerError<C> {
    override readonly name: string = className;
    constructor(message: string, options: Omit<ServerErrorOptions, 'status'> = {}) {
      super(code, message, options);
    }
  };
  Object.defineProperty(Fixed, 'name', { value: className });
  return Fixed;
}
