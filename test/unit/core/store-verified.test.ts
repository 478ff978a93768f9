import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { storeVerified } from '#core/store-verified.js';
import { MemoryStore, sha256Hex, text } from '#test/fakes.js';

const CONTENT = text('verified bytes');
const SHA = sha256Hex(CONTENT);

describe('storeVerified (docs/UPDATER.md §11, step 4)', () => {
  it("uses the store's own storeVerified when it has one (no partial, no second hash)", async () => {
    const handed: string[] = [];
    const store = new MemoryStore();
    const opened: string[] = [];
    const withPort = Object.assign(store, {
      storeVerified: (sha256: string) => {
        handed.push(sha256);
        return Promise.resolve();
      },
      openPartial: (sha256: string, size: number) => {
        opened.push(sha256);
        return MemoryStore.prototype.openPartial.call(store, sha256, size);
      },
    });
    await storeVerified(withPort, SHA, CONTENT.length, CONTENT);
    expect(handed).toEqual([SHA]);
    expect(opened).toEqual([]);
  });

  it('goes through a partial otherwise, which checks the bytes (HASH_MISMATCH) and drops old ones', async () => {
    const store = new MemoryStore();
    store.partials.set(SHA, { bytes: text('left by a kill'), validator: '"v"' });
    await storeVerified(store, SHA, CONTENT.length, CONTENT);
    expect(store.blobs.get(SHA)).toEqual(CONTENT);
    const wrong = text('not verified!!');
    const other = sha256Hex(text('another blob!!'));
    await expect(storeVerified(store, other, wrong.length, wrong)).rejects.toThrow(UpdateError);
    expect(store.blobs.has(other)).toBe(false);
  });
});
