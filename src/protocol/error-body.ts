/**
 * The one error body of the service (docs/INTERFACE.md §2, §7): every non-2xx answer carries it with
 * Content-Type application/json. `error` is a human message, `code` a stable identifier.
 * OAuth routes add `error_description` and put the RFC 6749 error code in `error` (docs/PROTOCOL.md).
 */
export interface ErrorBody {
  readonly ok: false;
  readonly error: string;
  readonly code: string;
  readonly error_description?: string;
}

/** Builds an error body. Messages are single-line: CR, LF and TAB are folded to spaces. */
export function errorBody(code: string, message: string): ErrorBody {
  return { ok: false, error: oneLine(message), code };
}

/** Narrows an unknown JSON value to an error body (used by clients to read refusals). */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v['ok'] === false && typeof v['code'] === 'string';
}

function oneLine(message: string): string {
  return message.replace(/[\r\n\t]+/g, ' ');
}
