/**
 * A keyed record store whose cost per write does not grow with the number of records
 * (docs/SERVER.md §Data directory): a snapshot (`NAME.json`, `{"version": 1, KEY: [...]}`,
 * the format machines.json always had, so today's files are read as they are) plus an
 * append-only journal (`NAME.journal`, one JSON line per change: `{"put": record}`,
 * `{"delete": id}` or `{"clear": true}`). Each change is appended and fsynced before it is acknowledged; changes
 * that arrive together share one append and one fsync. Once the journal holds more lines than
 * the snapshot has records (at least COMPACT_MIN_LINES), the snapshot is rewritten (atomically)
 * and the journal emptied, so the rewrite's cost is spread over as many writes as it copies.
 * Crash-safe: replaying a journal over a snapshot that already holds its changes changes
 * nothing (puts replace by id), and a torn last line (a crash mid-append) is dropped.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { writeJsonAtomic } from '#shared/atomic-file.js';
import { fieldOf, readStateJson, stateFileError } from './state-file.js';

export const COMPACT_MIN_LINES = 1000;

export interface JournalOptions<T> {
  /** The snapshot's path (NAME.json); the journal is NAME.journal beside it. */
  readonly snapshot: string;
  /** The snapshot's array member ("machines"). */
  readonly member: string;
  /** A record's id. */
  readonly idOf: (record: T) => string;
  /** What the operator can do about a corrupt file. */
  readonly remedy: string;
}

export class RecordJournal<T> {
  readonly #records = new Map<string, T>();
  readonly #journal: string;
  #lines = 0;
  #pending: string[] = [];
  #flushing: Promise<void> | undefined;
  #chain: Promise<void> = Promise.resolve();

  constructor(private readonly o: JournalOptions<T>) {
    this.#journal = o.snapshot.replace(/\.json$/, '') + '.journal';
  }

  /** The records after load and every change since, by id. */
  get records(): ReadonlyMap<string, T> {
    return this.#records;
  }

  /** Reads the snapshot, then replays the journal. */
  async load(): Promise<void> {
    const snapshot = await readStateJson(this.o.snapshot, this.o.remedy);
    if (snapshot !== undefined) {
      const list = fieldOf(snapshot, this.o.member);
      if (!Array.isArray(list)) {
        throw stateFileError(
          this.o.snapshot,
          `does not hold {"${this.o.member}": [...]}`,
          this.o.remedy,
        );
      }
      for (const r of list as T[]) this.#records.set(this.o.idOf(r), r);
    }
    const text = await readFile(this.#journal, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return '';
      throw stateFileError(this.#journal, `cannot be read (${e.message})`, this.o.remedy, e);
    });
    const lines = text.split('\n');
    for (const [i, line] of lines.entries()) {
      if (line === '') continue;
      const last = i >= lines.length - 2;
      if (!this.#replay(line, i + 1, last)) break;
      this.#lines += 1;
    }
  }

  /** Stores `record` (replacing the one with its id); resolves once it is on disk. */
  put(record: T): Promise<void> {
    this.#records.set(this.o.idOf(record), record);
    return this.#append(JSON.stringify({ put: record }));
  }

  /** Forgets the record with this id; resolves once that is on disk. */
  delete(id: string): Promise<void> {
    this.#records.delete(id);
    return this.#append(JSON.stringify({ delete: id }));
  }

  /** Forgets every record; resolves once that is on disk. */
  clear(): Promise<void> {
    this.#records.clear();
    return this.#append('{"clear":true}');
  }

  /** False for a torn last line (dropped); a bad line before the last is a corrupt journal. */
  #replay(line: string, n: number, last: boolean): boolean {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch (cause) {
      if (last) return false;
      throw stateFileError(this.#journal, `line ${n} is not JSON`, this.o.remedy, cause);
    }
    const put = fieldOf(entry, 'put');
    const gone = fieldOf(entry, 'delete');
    if (typeof put === 'object' && put !== null) this.#records.set(this.o.idOf(put as T), put as T);
    else if (typeof gone === 'string') this.#records.delete(gone);
    else if (fieldOf(entry, 'clear') === true) this.#records.clear();
    else
      throw stateFileError(
        this.#journal,
        `line ${n} is neither a put, a delete nor a clear`,
        this.o.remedy,
      );
    return true;
  }

  /** Queues a line; one flush at a time appends every queued line with one fsync. */
  #append(line: string): Promise<void> {
    this.#pending.push(line);
    this.#flushing ??= this.#chain.then(() => this.#flush());
    const done = this.#flushing;
    this.#chain = done.catch(() => undefined);
    return done;
  }

  async #flush(): Promise<void> {
    this.#flushing = undefined;
    const lines = this.#pending;
    this.#pending = [];
    if (this.#lines + lines.length > Math.max(COMPACT_MIN_LINES, this.#records.size)) {
      await this.#compact();
      return;
    }
    const handle = await open(this.#journal, 'a', 0o600);
    try {
      await handle.write(`${lines.join('\n')}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    this.#lines += lines.length;
  }

  /** The snapshot of every record, then an empty journal (a crash between replays harmlessly). */
  async #compact(): Promise<void> {
    await writeJsonAtomic(
      this.o.snapshot,
      { version: 1, [this.o.member]: [...this.#records.values()] },
      0o600,
    );
    await rm(this.#journal, { force: true });
    this.#lines = 0;
  }
}
