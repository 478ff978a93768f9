/**
 * Absences decided from one listing of blobs/ per run (src/node/blobs/blob-listing.ts,
 * docs/UPDATER.md §3 Durability): what the listing may say, and what it leaves to trustBlob.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordBlobFacts } from '#node/blobs/blob-facts.js';
import { BlobListing } from '#node/blobs/blob-listing.js';
import { openPartialBlob } from '#node/blobs/partial-open.js';
import { sha256Hex, text } from '#test/fakes.js';
import { tempDirs } from '#test/temp-dir.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const A = text('alpha bytes');
const SHA_A = sha256Hex(A);
const SHA_B = sha256Hex(text('beta bytes'));

async function blobDirs(): Promise<{ blobDir: string; partialDir: string }> {
  const meta = await dirs.make();
  const blobDir = join(meta, 'blobs');
  const partialDir = join(meta, 'partial');
  await mkdir(blobDir);
  await mkdir(partialDir);
  return { blobDir, partialDir };
}

describe('BlobListing', () => {
  it('an empty blob directory: every digest is absent', async () => {
    const { blobDir } = await blobDirs();
    const listing = new BlobListing(blobDir);
    expect(await listing.mayHold(SHA_A)).toBe(false);
    expect(await listing.mayHold(SHA_B)).toBe(false);
  });

  it('a listed name may be held (trustBlob decides); an unlisted one is absent', async () => {
    const { blobDir } = await blobDirs();
    await writeFile(join(blobDir, SHA_A), A);
    const listing = new BlobListing(blobDir);
    expect(await listing.mayHold(SHA_A)).toBe(true);
    expect(await listing.mayHold(SHA_B)).toBe(false);
  });

  it('a blob this process promotes after the listing is known through its recorded facts', async () => {
    const { blobDir, partialDir } = await blobDirs();
    const listing = new BlobListing(blobDir);
    expect(await listing.mayHold(SHA_A)).toBe(false);
    const partial = await openPartialBlob({ blobDir, partialDir }, SHA_A, A.length);
    await partial.write(A);
    await partial.complete();
    expect(await listing.mayHold(SHA_A)).toBe(true);
  });

  it('a name planted after the listing is absent until the next run lists afresh', async () => {
    const { blobDir } = await blobDirs();
    const listing = new BlobListing(blobDir);
    expect(await listing.mayHold(SHA_B)).toBe(false);
    await writeFile(join(blobDir, SHA_B), 'planted');
    // Fetched again then, and its rename replaces the planted file.
    expect(await listing.mayHold(SHA_B)).toBe(false);
    listing.forget();
    expect(await listing.mayHold(SHA_B)).toBe(true);
  });

  it('with many blobs recorded, the first lookups are left to lstat until a listing pays', async () => {
    const { blobDir } = await blobDirs();
    // Ten blobs with facts: the listing waits for two lookups (a fifth of ten).
    const names = Array.from({ length: 10 }, (_, i) => sha256Hex(text(`blob ${i}`)));
    for (const name of names) {
      await writeFile(join(blobDir, name), name);
      await recordBlobFacts(blobDir, name);
    }
    const listing = new BlobListing(blobDir);
    expect(await listing.mayHold(SHA_B)).toBe(true); // not listed yet: trustBlob's lstat decides
    expect(await listing.mayHold(SHA_B)).toBe(false); // listed now
  });

  it('a listing that fails is taken again by the next lookup', async () => {
    const { blobDir } = await blobDirs();
    const listing = new BlobListing(blobDir);
    await rm(blobDir, { recursive: true });
    await expect(listing.mayHold(SHA_A)).rejects.toMatchObject({ code: 'ENOENT' });
    await mkdir(blobDir);
    await writeFile(join(blobDir, SHA_A), A);
    expect(await listing.mayHold(SHA_A)).toBe(true);
  });
  it('surelyAbsent answers without a wait only once the listing is read, and never for a held one', async () => {
    const { blobDir } = await blobDirs();
    await writeFile(join(blobDir, SHA_A), A);
    const listing = new BlobListing(blobDir);
    // Nothing read yet: no answer without the full path.
    expect(listing.surelyAbsent(SHA_B)).toBe(false);
    expect(await listing.mayHold(SHA_B)).toBe(false);
    expect(listing.surelyAbsent(SHA_B)).toBe(true);
    expect(listing.surelyAbsent(SHA_A)).toBe(false);
    // A new run lists afresh: until then, no quick answer.
    listing.forget();
    expect(listing.surelyAbsent(SHA_B)).toBe(false);
  });
});
