/** write-all.ts: every byte written across short writes, or the write's own error (ENOSPC). */
import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { afterBytes, writeAll, writeAllSync } from '#node/fs/write-all.js';

const BATCH = [Buffer.from('abcd'), Buffer.from('ef'), Buffer.from('ghijk')];
const SIZE = 11;
const text = (buffers: readonly Buffer[]): string => Buffer.concat(buffers).toString('latin1');

/** A file that takes at most `max` bytes per write and fails once it holds `full` bytes. */
function file(max: number, full = Infinity) {
  const held: Buffer[] = [];
  let size = 0;
  return {
    held,
    write(buffers: readonly Buffer[]): number {
      if (size >= full) {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
          code: 'ENOSPC',
          errno: -28,
        });
      }
      const take = Buffer.concat(buffers).subarray(0, Math.min(max, full - size));
      held.push(take);
      size += take.length;
      return take.length;
    },
  };
}

describe('afterBytes', () => {
  it('drops whole buffers and cuts into the first one kept, without copying', () => {
    expect(text(afterBytes(BATCH, 0))).toBe('abcdefghijk');
    expect(text(afterBytes(BATCH, 2))).toBe('cdefghijk');
    expect(text(afterBytes(BATCH, 4))).toBe('efghijk');
    expect(text(afterBytes(BATCH, 7))).toBe('hijk');
    expect(afterBytes(BATCH, SIZE)).toEqual([]);
    const view = afterBytes(BATCH, 1)[0];
    expect(view?.buffer).toBe(BATCH[0]?.buffer);
  });
});

describe('writeAllSync', () => {
  it('writes the rest after each short write, in order', () => {
    const f = file(3);
    writeAllSync((b) => f.write(b), BATCH, SIZE);
    expect(text(f.held)).toBe('abcdefghijk');
    expect(f.held).toHaveLength(4);
  });

  it('throws the error of the write after a short one (a full disk: ENOSPC)', () => {
    const f = file(64, 5);
    expect(() => writeAllSync((b) => f.write(b), BATCH, SIZE)).toThrow(
      expect.objectContaining({ code: 'ENOSPC' }),
    );
    expect(text(f.held)).toBe('abcde');
  });

  it('refuses a write that takes nothing without an error: IO, no endless loop', () => {
    let calls = 0;
    const write = (): number => (++calls === 1 ? 4 : 0);
    expect(() => writeAllSync(write, BATCH, SIZE)).toThrow(UpdateError);
    expect(() => writeAllSync(() => 0, BATCH, SIZE)).toThrow(/short write \(0 of 11 bytes\)/);
  });
});

describe('writeAll', () => {
  it('writes the rest after each short write, then throws the next error', async () => {
    const f = file(3);
    await writeAll((b) => Promise.resolve(f.write(b)), BATCH, SIZE);
    expect(text(f.held)).toBe('abcdefghijk');
    const full = file(64, 7);
    await expect(writeAll((b) => Promise.resolve(full.write(b)), BATCH, SIZE)).rejects.toThrow(
      /ENOSPC/,
    );
    expect(text(full.held)).toBe('abcdefg');
  });
});
