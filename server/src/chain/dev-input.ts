/**
 * Strict parsing of the dev API bodies (docs/PROTOCOL.md §5, Dev API): POST /api/dev/machines
 * {"id", "name", "visibility"} and POST /api/dev/transitions {"machine_id", "count", "unit"?}.
 * Unknown fields, wrong types and out-of-range numbers are refused rather than guessed.
 */
import { ChainError } from './chain-error.js';
import type { MachineInput, Visibility } from './machine-registry.js';

/** Upper bound of one transitions call, so totals stay exact integers far beyond any test. */
export const MAX_TRANSITIONS_PER_CALL = 1_000_000;

export interface TransitionInput {
  readonly machine_id: string;
  readonly count: number;
  readonly unit?: number;
}

function asObject(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ChainError('INVALID_BODY', 'body must be a JSON object');
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key))
      throw new ChainError('INVALID_BODY', `unknown field ${JSON.stringify(key.slice(0, 40))}`);
  }
  return record;
}

/** Validates a machine body; the registry re-checks id and name when it stores them. */
export function parseMachineInput(body: unknown): MachineInput {
  const b = asObject(body, ['id', 'name', 'visibility']);
  if (typeof b['id'] !== 'string') throw new ChainError('INVALID_MACHINE_ID', 'id is required');
  if (typeof b['name'] !== 'string') throw new ChainError('INVALID_NAME', 'name is required');
  const visibility = b['visibility'];
  if (visibility !== 'public' && visibility !== 'private')
    throw new ChainError('INVALID_VISIBILITY', 'visibility must be "public" or "private"');
  return { id: b['id'], name: b['name'], visibility: visibility satisfies Visibility };
}

/** Validates a transitions body. The unit's range is checked against the clock by the state. */
export function parseTransitionInput(body: unknown): TransitionInput {
  const b = asObject(body, ['machine_id', 'count', 'unit']);
  if (typeof b['machine_id'] !== 'string')
    throw new ChainError('INVALID_MACHINE_ID', 'machine_id is required');
  const count = b['count'];
  if (
    typeof count !== 'number' ||
    !Number.isInteger(count) ||
    count < 1 ||
    count > MAX_TRANSITIONS_PER_CALL
  )
    throw new ChainError(
      'INVALID_COUNT',
      `count must be an integer from 1 to ${MAX_TRANSITIONS_PER_CALL}`,
    );
  const unit = b['unit'];
  if (unit === undefined) return { machine_id: b['machine_id'], count };
  if (typeof unit !== 'number' || !Number.isSafeInteger(unit))
    throw new ChainError('INVALID_UNIT', 'unit must be an integer unit index');
  return { machine_id: b['machine_id'], count, unit };
}
