import { describe, expect, it } from 'vitest';
import { nextRowIndex } from '#renderer/activity-keys.js';

describe('ranking keys (one Tab stop, arrows inside)', () => {
  it('moves down and up, stopping at the ends', () => {
    expect(nextRowIndex('ArrowDown', 0, 3)).toBe(1);
    expect(nextRowIndex('ArrowDown', 2, 3)).toBe(2);
    expect(nextRowIndex('ArrowUp', 1, 3)).toBe(0);
    expect(nextRowIndex('ArrowUp', 0, 3)).toBe(0);
  });

  it('Home and End go to the first and last rows; other keys are left alone', () => {
    expect(nextRowIndex('Home', 2, 3)).toBe(0);
    expect(nextRowIndex('End', 0, 3)).toBe(2);
    expect(nextRowIndex('Tab', 0, 3)).toBeNull();
    expect(nextRowIndex('ArrowDown', 0, 0)).toBeNull();
  });
});
