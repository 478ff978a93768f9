/**
 * Shared by the tests of answer verification: the refusal code of a call, and the fields of
 * an AnswerInput that most cases leave as they are.
 */
import { UpdateError } from '#core/errors.js';
import type { AnswerInput } from '#core/trust/verify.js';
import { T0 } from './fakes.js';

/** The UpdateError code `fn` throws, or 'accepted'; any other throw is rethrown. */
export function updateCodeOf(fn: () => unknown): string {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    if (error instanceof UpdateError) return error.code;
    throw error;
  }
}

/** Nothing trusted yet, at T0, five minutes of skew allowed, answers up to 1 MiB, no nonce. */
export const FIRST_CONTACT: Omit<AnswerInput, 'pinned'> = {
  trust: null,
  floor: null,
  nowMs: T0,
  maxFutureSkewMs: 300_000,
  nonce: undefined,
  maxManifestBytes: 1 << 20,
};
