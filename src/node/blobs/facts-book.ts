/**
 * The facts of every held blob as it was verified (docs/SECURITY.md §8): kept in memory for the
 * life of the process and saved in ONE file, `.updater/verified/facts.json`, once per commit.
 * Loaded once per process per blob directory, the first time a blob there is looked at, so a
 * run costs one read and one directory listing instead of about a dozen file calls per blob.
 *
 * The file is written whole and renamed, without fsync (docs/UPDATER.md §3, Durability): a
 * record lost or left stale by a crash only costs a re-hash, since a blob changed since its
 * record was made has another ctime (a user cannot set the ctime back), and a record of a blob
 * that is gone matches nothing. The memory copy is at least as trustworthy as the file: it
 * was made by this process, right after the verification.
 */
import { type BigIntStats, type Dirent } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ensureRealDir, readNoFollow, unsafeEntry } from '../fs/index.js';

/** What was true of a blob's file when it was last verified: dev:ino:size:mtimeNs:ctimeNs. */
export function factsOf(info: StatFacts): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** The exact (bigint) fields of a stat that the facts are made of. */
type StatFacts = Pick<BigIntStats, 'dev' | 'ino' | 'size' | 'mtimeNs' | 'ctimeNs'>;

/**
 * A blob's facts: as read from the file (`factsOf`'s string), or as recorded by this process,
 * the five exact numbers of the stat kept as they are. Compared field by field, a stat costs
 * no string of its own: a fresh install made three per blob, about a tenth of the bytes its
 * pull allocated (docs/UPDATER.md §11.1). The string is built once, when the book is saved.
 */
type BlobFacts = string | StatFacts;

function sameFacts(facts: BlobFacts | undefined, info: StatFacts): boolean {
  if (facts === undefined) return false;
  if (typeof facts === 'string') return facts === factsOf(info);
  return (
    facts.ino === info.ino &&
    facts.ctimeNs === info.ctimeNs &&
    facts.dev === info.dev &&
    facts.size === info.size &&
    facts.mtimeNs === info.mtimeNs
  );
}

/** The one file of `verified/`; every other name there is a per-blob file of old versions. */
export const FACTS_FILE = 'facts.json';
const FORMAT = 1;
const SHA_RE = /^[0-9a-f]{64}$/;
const FACTS_RE = /^\d+:\d+:\d+:\d+:\d+$/;

/** `.updater/verified`, the sibling of `.updater/blobs`. */
export function verifiedDirOf(blobDir: string): string {
  return join(dirname(blobDir), 'verified');
}

export class FactsBook {
  private dirty = false;

  private constructor(
    private readonly dir: string,
    private readonly facts: Map<string, BlobFacts>,
  ) {}

  /**
   * Reads `verified/facts.json` (a missing or malformed one is an empty book: re-hashes, not an
   * error) after checking `verified/` (`checkVerifiedDir`).
   */
  static async load(blobDir: string): Promise<FactsBook> {
    const dir = verifiedDirOf(blobDir);
    await checkVerifiedDir(blobDir);
    const facts = new Map<string, BlobFacts>();
    const bytes = await readNoFollow(join(dir, FACTS_FILE));
    if (bytes !== undefined) parseInto(bytes, facts);
    return new FactsBook(dir, facts);
  }

  /** Blobs with recorded facts: about as many as blobs/ holds (a GC forgets the others). */
  get size(): number {
    return this.facts.size;
  }

  /**
   * Whether facts were recorded for `sha256`. Every blob this process renames into blobs/ is
   * recorded at its arrival (blob-facts.ts `keepIfArrived`), so a digest the book does not know
   * and a listing of blobs/ did not name is absent (file-store.ts `hasBlob`).
   */
  knows(sha256: string): boolean {
    return this.facts.has(sha256);
  }

  /** Whether `sha256`'s recorded facts are exactly `info`'s. */
  holds(sha256: string, info: StatFacts): boolean {
    return sameFacts(this.facts.get(sha256), info);
  }

  record(sha256: string, info: StatFacts): void {
    if (sameFacts(this.facts.get(sha256), info)) return;
    // The five fields only: the rest of the stat (dates and all) is not kept alive.
    const { dev, ino, size, mtimeNs, ctimeNs } = info;
    this.facts.set(sha256, { dev, ino, size, mtimeNs, ctimeNs });
    this.dirty = true;
  }

  forget(sha256: string): void {
    if (this.facts.delete(sha256)) this.dirty = true;
  }

  /** Forgets every blob but `kept` (after a GC removed the others). */
  retainOnly(kept: ReadonlySet<string>): void {
    for (const sha of this.facts.keys()) if (!kept.has(sha)) this.forget(sha);
  }

  /** Writes the book when it changed: whole to a fresh temporary name, then renamed (no fsync). */
  async save(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    const path = join(this.dir, FACTS_FILE);
    const temp = `${path}.tmp`;
    const facts: Record<string, string> = {};
    for (const [sha, f] of this.facts) facts[sha] = typeof f === 'string' ? f : factsOf(f);
    const body = JSON.stringify({ format: FORMAT, facts });
    // Exclusive create ('wx' fails on any entry, a link included): a planted name is removed first.
    await rm(temp, { force: true });
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(body);
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  }
}

/**
 * `verified/` must be a real directory holding no link (STATE_UNSAFE otherwise); the per-blob
 * files older versions wrote there are removed unread (each costs one re-hash). Once per store
 * open: after the migration the listing has one entry.
 */
async function checkVerifiedDir(blobDir: string): Promise<void> {
  const dir = verifiedDirOf(blobDir);
  await ensureRealDir(dir);
  // d_type from readdir: one call for the whole directory, no lstat per entry.
  const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) throw unsafeEntry(path, 'is a symbolic link');
    if (entry.name !== FACTS_FILE) await rm(path, { recursive: true, force: true });
  }
}

/** Fills `into` from the file's bytes; anything malformed is skipped (a re-hash, not an error). */
function parseInto(bytes: Uint8Array, into: Map<string, BlobFacts>): void {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return;
  }
  const o = json as { format?: unknown; facts?: unknown };
  if (o.format !== FORMAT || typeof o.facts !== 'object' || o.facts === null) return;
  for (const [sha, facts] of Object.entries(o.facts as Record<string, unknown>)) {
    if (SHA_RE.test(sha) && typeof facts === 'string' && FACTS_RE.test(facts)) {
      into.set(sha, facts);
    }
  }
}

/** One book per blob directory for the process: loaded once, shared by every store on it. */
const books = new Map<string, Promise<FactsBook>>();

/**
 * At a store's open: checks `verified/` (every open: a link planted between two runs of one
 * process is refused). The book itself is loaded at first use (`factsBookOf`), so a run that
 * looks at no blob, such as a no-op check or update, never reads or parses it (at 10,000 blobs
 * that was about a tenth of a no-op's CPU).
 */
export async function openFactsBook(blobDir: string): Promise<void> {
  await checkVerifiedDir(blobDir);
}

/**
 * `blobDir` as given -> its resolved key: the book is asked for several times per blob, and
 * path.resolve (which reads the working directory and normalises) cost more than the lookup.
 */
const keys = new Map<string, string>();

/** The books loaded so far, by the same key: for `loadedFactsBook`. */
const loaded = new Map<string, FactsBook>();

function keyOf(blobDir: string): string {
  let key = keys.get(blobDir);
  if (key === undefined) {
    key = resolve(blobDir);
    // A relative one follows the working directory: resolved at every call.
    if (isAbsolute(blobDir)) keys.set(blobDir, key);
  }
  return key;
}

/** The book of `blobDir`, loaded on first use. A failed load is retried by the next call. */
export function factsBookOf(blobDir: string): Promise<FactsBook> {
  const key = keyOf(blobDir);
  let book = books.get(key);
  if (book === undefined) {
    book = FactsBook.load(key).then(
      (done) => {
        loaded.set(key, done);
        return done;
      },
      (error: unknown) => {
        books.delete(key);
        throw error;
      },
    );
    books.set(key, book);
  }
  return book;
}

/**
 * The book of `blobDir` if it is loaded already, without an await: the promotion of each small
 * blob asks for it, and an await per blob cost more than the lookup (docs/UPDATER.md §11.1).
 */
export function loadedFactsBook(blobDir: string): FactsBook | undefined {
  return loaded.get(keyOf(blobDir));
}
