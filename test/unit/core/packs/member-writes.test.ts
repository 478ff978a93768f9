import { describe, expect, it } from 'vitest';
import { MemberWrites } from '#core/packs/member-writes.js';

/** A write that ends when its `end` is called. */
function gate(): { write: () => Promise<void>; end: (error?: Error) => void; started: boolean } {
  let resolve: () => void = () => undefined;
  let reject: (e: Error) => void = () => undefined;
  const g = {
    started: false,
    write: () => {
      g.started = true;
      return new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
    },
    end: (error?: Error) => (error === undefined ? resolve() : reject(error)),
  };
  return g;
}

describe('MemberWrites (docs/UPDATER.md §11)', () => {
  it('lets writes run together up to the count, then waits for one to end', async () => {
    const writes = new MemberWrites(2, 1000);
    const [a, b] = [gate(), gate()];
    await writes.add(10, a.write);
    let secondReturned = false;
    const second = writes.add(10, b.write).then(() => (secondReturned = true));
    await Promise.resolve();
    expect(a.started && b.started).toBe(true);
    expect(secondReturned).toBe(false);
    a.end();
    await second;
    b.end();
    await writes.drain();
  });

  it('waits while the bytes in flight reach the bound', async () => {
    const writes = new MemberWrites(16, 100);
    const a = gate();
    let returned = false;
    const first = writes.add(100, a.write).then(() => (returned = true));
    await Promise.resolve();
    expect(returned).toBe(false);
    a.end();
    await first;
    expect(returned).toBe(true);
  });

  it('throws the first failure from the next add and from drain', async () => {
    const writes = new MemberWrites(4, 1000);
    const a = gate();
    await writes.add(1, a.write);
    a.end(new Error('disk full'));
    await expect(writes.drain()).rejects.toThrow('disk full');
    await expect(writes.add(1, () => Promise.resolve())).rejects.toThrow('disk full');
  });
});
