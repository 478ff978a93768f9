/**
 * Absence without a negative lstat per blob (docs/UPDATER.md §3, Durability): a fresh install
 * asks `hasBlob` twice per artifact (accept, then plan), each a failed lstat on the main
 * thread, where one listing of blobs/ answers all of them (docs/UPDATER.md §10.1).
 *
 * A digest is absent when the facts book does not know it and the listing did not name it.
 * Only an absence is decided here; a digest that may be held still goes through `trustBlob`
 * (blob-facts.ts), which checks the file it would use. Why a listing can be trusted for that:
 * - the store is locked for the updater's lifetime (create-updater.ts): no other updater adds
 *   a blob after the listing;
 * - every blob this process renames into blobs/ (whole, streamed or chunked) has its facts
 *   recorded at its arrival (blob-facts.ts `keepIfArrived`), so the book knows it;
 * - a name that appears otherwise after the listing (another user's hand) is called absent:
 *   it is fetched again, verified, and its rename replaces that file. Nothing is trusted
 *   that was not checked; the cost of a stale listing is a download;
 * - a name that disappears after the listing is found absent by `trustBlob`'s lstat.
 * The listing is taken once per run (`forget` at each state read) and only when the lookups
 * pay for it: an entry listed costs a fraction of a negative lstat, so it waits for a fifth as
 * many lookups as the book has blobs (none on a fresh install; docs/UPDATER.md §10.1).
 */
import { readdir } from 'node:fs/promises';
import { factsBookOf, loadedFactsBook } from './facts-book.js';

/** Lookups per blob held before a listing pays (docs/UPDATER.md §10.1). */
export const LOOKUPS_PER_LISTED_BLOB = 1 / 5;

export class BlobListing {
  private listing: Promise<ReadonlySet<string>> | undefined;
  private lookups = 0;
  /** This run's listing, once read (`surelyAbsent`). */
  private names: ReadonlySet<string> | undefined;

  constructor(private readonly blobDir: string) {}

  /** False only when `sha256` is surely not in blobs/ (see above); true: ask `trustBlob`. */
  async mayHold(sha256: string): Promise<boolean> {
    const book = await factsBookOf(this.blobDir);
    if (book.knows(sha256)) return true;
    if (this.listing === undefined) {
      this.lookups += 1;
      if (this.lookups < book.size * LOOKUPS_PER_LISTED_BLOB) return true;
      const listing: Promise<ReadonlySet<string>> = readdir(this.blobDir).then(
        (names) => {
          const set = new Set(names);
          if (this.listing === listing) this.names = set;
          return set;
        },
        (error: unknown) => {
          if (this.listing === listing) this.listing = undefined;
          throw error;
        },
      );
      this.listing = listing;
    }
    return (await this.listing).has(sha256);
  }

  /**
   * `mayHold`'s false, answered without waiting once the book is loaded and this run's listing
   * is read: a fresh install asks twice per artifact, and the awaits of the full answer cost
   * more than its lookups (docs/UPDATER.md §11.1). False: ask `mayHold`.
   */
  surelyAbsent(sha256: string): boolean {
    const book = this.names === undefined ? undefined : loadedFactsBook(this.blobDir);
    return book !== undefined && !book.knows(sha256) && this.names?.has(sha256) === false;
  }

  /** The next lookup lists blobs/ afresh (at each run's start). */
  forget(): void {
    this.listing = undefined;
    this.names = undefined;
    this.lookups = 0;
  }
}
