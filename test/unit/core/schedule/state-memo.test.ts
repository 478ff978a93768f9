/** src/core/schedule/state-memo.ts: one run reads the state file once, until it writes it. */
import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { EMPTY_STATE, type UpdaterState } from '#core/state.js';
import { memoizeState } from '#core/schedule/state-memo.js';
import { MemoryStore } from '#test/fakes.js';

class CountingStore extends MemoryStore {
  loads = 0;
  failNextSave = false;
  override loadState(): Promise<UpdaterState> {
    this.loads++;
    return super.loadState();
  }
  override saveState(state: UpdaterState): Promise<void> {
    if (this.failNextSave) {
      this.failNextSave = false;
      return Promise.reject(new UpdateError('IO', 'disk full'));
    }
    return super.saveState(state);
  }
}

const later: UpdaterState = { ...EMPTY_STATE, lastCheckAtMs: 42 };

describe('memoizeState', () => {
  it('reads the state once for any number of loads', async () => {
    const store = new CountingStore();
    const memo = memoizeState(store);
    expect(await memo.loadState()).toBe(EMPTY_STATE);
    expect(await memo.loadState()).toBe(EMPTY_STATE);
    expect(store.loads).toBe(1);
  });

  it('hands out what it wrote, without reading it back', async () => {
    const store = new CountingStore();
    const memo = memoizeState(store);
    await memo.loadState();
    await memo.saveState(later);
    expect(store.state).toBe(later);
    expect(await memo.loadState()).toBe(later);
    expect(store.loads).toBe(1);
  });

  it('reads the file again after a failed write (it may hold either state)', async () => {
    const store = new CountingStore();
    const memo = memoizeState(store);
    await memo.loadState();
    store.failNextSave = true;
    await expect(memo.saveState(later)).rejects.toMatchObject({ code: 'IO' });
    await memo.loadState();
    expect(store.loads).toBe(2);
  });

  it('reads the file again after a commit or a switch (the journal may merge floors)', async () => {
    const store = new CountingStore();
    const memo = memoizeState(store);
    await memo.loadState();
    await memo.switchSet('a'.repeat(64), later).catch(() => undefined);
    await memo.loadState();
    expect(store.loads).toBe(2);
    await memo.commitSet(
      { setId: 'b'.repeat(64), envelope: new Uint8Array(), artifacts: [] },
      later,
    );
    await memo.loadState();
    expect(store.loads).toBe(3);
  });

  it('passes every other call through to the store', async () => {
    const store = new CountingStore();
    const memo = memoizeState(store);
    store.blobs.set('c'.repeat(64), new Uint8Array(3));
    expect(await memo.hasBlob('c'.repeat(64), 3)).toBe(true);
    expect(await memo.hasBlob('c'.repeat(64), 4)).toBe(false);
  });
});
