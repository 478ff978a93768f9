import { describe, expect, it } from 'vitest';
import { parseMachineInput, parseTransitionInput } from '#server/chain/dev-input.js';
import { refusal } from '#test/chain-context.js';

describe('dev API bodies (docs/PROTOCOL.md §5, Dev API)', () => {
  it('reads a machine body', () => {
    expect(parseMachineInput({ id: 'm', name: 'M', visibility: 'private' })).toEqual({
      id: 'm',
      name: 'M',
      visibility: 'private',
    });
  });

  it('reads a transitions body with and without unit', () => {
    expect(parseTransitionInput({ machine_id: 'm', count: 2 })).toEqual({
      machine_id: 'm',
      count: 2,
    });
    expect(parseTransitionInput({ machine_id: 'm', count: 2, unit: 9 })).toEqual({
      machine_id: 'm',
      count: 2,
      unit: 9,
    });
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, undefined, 'x', 3, []])
      expect(refusal(() => parseMachineInput(body))).toBe('INVALID_BODY');
  });

  it('refuses a missing visibility', () => {
    expect(refusal(() => parseMachineInput({ id: 'm', name: 'M' }))).toBe('INVALID_VISIBILITY');
  });

  it('refuses a count that is a float, a string, too large or missing', () => {
    for (const count of [1.5, '3', 1_000_001, undefined, true])
      expect(refusal(() => parseTransitionInput({ machine_id: 'm', count }))).toBe('INVALID_COUNT');
  });

  it('refuses a unit that is null or beyond safe integers', () => {
    for (const unit of [null, 2 ** 53, Number.NaN])
      expect(refusal(() => parseTransitionInput({ machine_id: 'm', count: 1, unit }))).toBe(
        'INVALID_UNIT',
      );
  });

  it('refuses unknown fields, including __proto__ from JSON', () => {
    const body = JSON.parse('{"machine_id":"m","count":1,"__proto__":{"x":1}}') as unknown;
    expect(refusal(() => parseTransitionInput(body))).toBe('INVALID_BODY');
  });
});
