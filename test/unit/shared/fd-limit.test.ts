import { describe, expect, it } from 'vitest';
import { addressCap, connectionCap, parseOpenFilesLimit } from '#shared/fd-limit.js';

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

  it('gives one address its share of the cap, in proportion when the reserve lowered it', () => {
    expect(addressCap(500, 1000, 1000)).toBe(500);
    expect(addressCap(500, 1000, 896)).toBe(448);
    expect(addressCap(500, 1000, 1)).toBe(1);
    expect(addressCap(2000, 1000, 1000)).toBe(1000);
    expect(addressCap(1, 1000, 10)).toBe(1);
  });
});
