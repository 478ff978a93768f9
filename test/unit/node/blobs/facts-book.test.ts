/**
 * The one facts file of a state directory (src/node/blobs/facts-book.ts, docs/SECURITY.md §8): the
 * facts of a run live in memory, are saved once per commit to `verified/facts.json`, and are
 * read back by a later process; the per-blob files of older versions are removed.
 */
import { chmod, lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_STATE } from '#core/state.js';
import { FACTS_FILE, FactsBook, openFactsBook } from '#node/blobs/facts-book.js';
import { FileStore } from '#node/store/file-store.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const A = text('alpha bytes');
const B = text('bravo bytes');

/** A store with A and B committed as version 1. */
async function committed(): Promise<FileStore> {
  const store = await FileStore.open(await dirs.make());
  for (const c of [A, B]) {
    const partial = await store.openPartial(sha256Hex(c), c.length);
    await partial.write(c);
    await partial.complete();
  }
  const artifacts = [
    { name: 'a', size: A.length, sha256: sha256Hex(A) },
    { name: 'b', size: B.length, sha256: sha256Hex(B) },
  ];
  const set = { setId: sha256Hex(text('v1')), version: '1.0.0', artifacts };
  await store.commitSet({ ...set, envelope: text('env') }, { ...EMPTY_STATE, installed: set });
  return store;
}

const verifiedOf = (store: FileStore): string => join(store.paths.meta, 'verified');

describe('facts book', () => {
  it('a commit saves the facts of every kept blob in one file, which a later process trusts', async () => {
    const store = await committed();
    expect(await readdir(verifiedOf(store))).toEqual([FACTS_FILE]);
    // A fresh load (as a new process would): the recorded facts hold for both blobs.
    const book = await FactsBook.load(store.paths.blobs);
    for (const c of [A, B]) {
      const sha = sha256Hex(c);
      const info = await lstat(join(store.paths.blobs, sha), { bigint: true });
      expect(book.holds(sha, info)).toBe(true);
    }
  });

  it('a blob whose file changed after its facts were saved no longer holds', async () => {
    const store = await committed();
    const sha = sha256Hex(A);
    const { mode } = await lstat(join(store.paths.blobs, sha));
    await chmod(join(store.paths.blobs, sha), mode); // same mode, but the ctime moves
    const book = await FactsBook.load(store.paths.blobs);
    const info = await lstat(join(store.paths.blobs, sha), { bigint: true });
    expect(book.holds(sha, info)).toBe(false);
  });

  it('the per-blob facts files of older versions are removed when a store opens', async () => {
    const store = await committed();
    const legacy = join(verifiedOf(store), sha256Hex(A));
    await writeFile(legacy, '{"dev":"1"}');
    await writeFile(`${legacy}.tmp`, 'x');
    await FileStore.open(store.paths.root);
    expect(await readdir(verifiedOf(store))).toEqual([FACTS_FILE]);
  });

  it('a malformed facts file is an empty book (a re-hash), not an error', async () => {
    const store = await committed();
    await writeFile(join(verifiedOf(store), FACTS_FILE), '{"format":1,"facts":{"zz":"1:2"}');
    const book = await FactsBook.load(store.paths.blobs);
    const sha = sha256Hex(A);
    expect(book.holds(sha, await lstat(join(store.paths.blobs, sha), { bigint: true }))).toBe(
      false,
    );
  });

  it('a link at verified/facts.json is STATE_UNSAFE at the next open, its target untouched', async () => {
    const store = await committed();
    const outside = join(await dirs.make(), 'outside');
    await writeFile(outside, 'precious');
    const facts = join(verifiedOf(store), FACTS_FILE);
    await rm(facts);
    await symlink(outside, facts);
    await expect(openFactsBook(store.paths.blobs)).rejects.toMatchObject({
      code: 'STATE_UNSAFE',
      message: expect.stringContaining(facts) as unknown,
    });
    expect(await readFile(outside, 'utf8')).toBe('precious');
  });

  it('a saved book is replaced by rename, never written through a link at its temporary name', async () => {
    const root = await dirs.make();
    const blobDir = join(root, 'blobs');
    await mkdir(blobDir);
    const outside = join(root, 'outside');
    await writeFile(outside, 'precious');
    const book = await FactsBook.load(blobDir);
    await symlink(outside, join(root, 'verified', `${FACTS_FILE}.tmp`));
    await writeFile(join(blobDir, 'x'), 'x');
    book.record('a'.repeat(64), await lstat(join(blobDir, 'x'), { bigint: true }));
    await book.save();
    expect(await readFile(outside, 'utf8')).toBe('precious');
    expect(await readdir(join(root, 'verified'))).toEqual([FACTS_FILE]);
  });
  it('compares recorded facts exactly, field by field: one nanosecond of ctime is a change', async () => {
    const root = await dirs.make();
    const blobDir = join(root, 'blobs');
    await mkdir(blobDir);
    const book = await FactsBook.load(blobDir);
    const sha = 'b'.repeat(64);
    // Past 2^53: numbers would round these to one value; the book must not.
    const facts = {
      dev: 2n ** 60n + 3n,
      ino: 2n ** 62n + 1n,
      size: 4096n,
      mtimeNs: 1_000_000_000_000_000_000n,
      ctimeNs: 1_764_400_000_123_456_789n,
    };
    book.record(sha, facts);
    expect(book.holds(sha, { ...facts })).toBe(true);
    for (const key of ['dev', 'ino', 'size', 'mtimeNs', 'ctimeNs'] as const) {
      expect(book.holds(sha, { ...facts, [key]: facts[key] + 1n })).toBe(false);
    }
    await book.save();
    const saved = JSON.parse(await readFile(join(root, 'verified', FACTS_FILE), 'utf8')) as {
      facts: Record<string, string>;
    };
    expect(saved.facts[sha]).toBe(
      `${facts.dev}:${facts.ino}:${facts.size}:${facts.mtimeNs}:${facts.ctimeNs}`,
    );
    const reloaded = await FactsBook.load(blobDir);
    expect(reloaded.holds(sha, facts)).toBe(true);
    expect(reloaded.holds(sha, { ...facts, ctimeNs: facts.ctimeNs + 1n })).toBe(false);
  });
});
