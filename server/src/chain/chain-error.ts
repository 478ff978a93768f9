/**
 * The chain area's one error type. Every refusal of the dev API and of the in-process API is a
 * ChainError with a stable `code` and the HTTP status the dev routes answer with; messages never
 * echo more than a short, single-line excerpt of the input.
 */
import type { ChainErrorCode } from '#protocol';
import { ServerError } from '../server-error.js';

const STATUS: Readonly<Record<ChainErrorCode, number>> = {
  INVALID_BODY: 400,
  INVALID_MACHINE_ID: 400,
  INVALID_NAME: 400,
  INVALID_VISIBILITY: 400,
  INVALID_COUNT: 400,
  INVALID_UNIT: 400,
  UNIT_IN_FUTURE: 400,
  UNIT_TOO_OLD: 400,
  UNKNOWN_MACHINE: 404,
  TOO_MANY_MACHINES: 400,
};

export class ChainError extends ServerError<ChainErrorCode> {
  override readonly name = 'ChainError';
  constructor(code: ChainErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { ...options, status: STATUS[code] });
  }
}
