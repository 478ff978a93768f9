import { describe, expect, it } from 'vitest';
import { missingBlobs } from '../../../src/core/pull.js';
import type { ManifestArtifact } from '../../../src/protocol/manifest.js';
import { MemoryStore, sha256Hex, text } from './fakes.js';

const a1 = text('a one');
const a2 = text('a two!');
const b1 = text('b one, longer');

function artifact(name: string, content: Uint8Array): ManifestArtifact {
  const sha256 = sha256Hex(content);
  return { name, size: content.length, sha256, url: `api/updates/artifacts/${sha256}` };
}

describe('missingBlobs (what a pull fetches)', () => {
  it('fetches only the changed artifact when the store holds the rest', async () => {
    const store = new MemoryStore();
    store.blobs.set(sha256Hex(a1), a1);
    store.blobs.set(sha256Hex(b1), b1);
    const todo = await missingBlobs(store, [artifact('a', a2), artifact('b', b1)]);
    expect(todo.map((d) => d.name)).toEqual(['a']);
  });

  it('downloads identical contents once', async () => {
    const todo = await missingBlobs(new MemoryStore(), [artifact('x', a1), artifact('y', a1)]);
    expect(todo).toHaveLength(1);
  });

  it('fetches a blob the store lost although the installed set names it (repair)', async () => {
    const todo = await missingBlobs(new MemoryStore(), [artifact('a', a1)]);
    expect(todo.map((d) => d.name)).toEqual(['a']);
  });

  it('does not fetch a blob kept in the store for another set', async () => {
    const store = new MemoryStore();
    store.blobs.set(sha256Hex(b1), b1);
    expect(await missingBlobs(store, [artifact('renamed', b1)])).toEqual([]);
  });
});
