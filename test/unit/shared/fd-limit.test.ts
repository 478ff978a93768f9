import { describe, expect, it } from 'vitest';
import { connectionCap, parseOpenFilesLimit } from '#shared/fd-limit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 1048576              files
`;

describe('the descriptor reserve (docs/SERVER.md §Limits)', () => {
  it('reads the soft open-files limit', () => {
    expect(parseOpenFilesLimit(LIMITS)).toBe(1024);
    expect(parseOpenFilesLimit('Max open files unlimited unlimited files')).toBeUndefined();
    expect(parseOpenFilesLimit('')).toBeUndefined();
  });

  it('lowers the cap to leave the reserve free, never below one', () => {
    expect(connectionCap(1000, 128, 1024)).toBe(896);
    expect(connectionCap(100, 128, 1024)).toBe(100);
    expect(connectionCap(1000, 128, undefined)).toBe(1000);
    expect(connectionCap(1000, 128, 64)).toBe(1);
  });
});
