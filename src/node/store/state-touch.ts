/**
 * The last-run record beside the state file (docs/UPDATER.md §3, No-op runs). A run that
 * changes nothing but `lastCheckAtMs`, `lastSuccessAtMs` and `lastError` (a no-op check or
 * update, a failure recorded) writes those three fields to a small file, `state-touch.json`,
 * instead of rewriting the whole state (about 1 MB at 10,000 installed artifacts). Every other
 * change, above all anything the trust rules keep (rollback floor, digests, key set, freshness
 * floor, docs/PROTOCOL.md §2.7), still replaces the state file itself, durably.
 *
 * The record names the SHA-256 of the state file bytes it amends, so it applies to exactly that
 * file: any later write of the state (a commit, a switch, a replayed journal, a full save)
 * changes those bytes and leaves the record stale, and a stale, unreadable or malformed record
 * is ignored: it holds only times and the last error, so ignoring it loses nothing the updater
 * relies on. Both files are replaced atomically (atomic-file.ts), and the record is read
 * without following a link (safe-fs.ts).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UpdateErrorCode } from '#core/errors.js';
import type { LocalStore } from '#core/ports.js';
import type { UpdaterState } from '#core/state.js';
import { storeVerified } from '#core/store-verified.js';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { errno, io } from '../fs/index.js';
import { readNoFollow } from '../fs/index.js';
import type { StateDirPaths } from '../fs/index.js';

/** The record's file name in DIR/.updater. */
export const TOUCH_FILE = 'state-touch.json';

/** The fields a touch may carry; every other field of the state goes to the state file. */
export type Touched = Pick<UpdaterState, 'lastCheckAtMs' | 'lastSuccessAtMs' | 'lastError'>;

interface TouchRecord extends Touched {
  readonly schema: 1;
  /** Lowercase hex SHA-256 of the state file bytes this record amends. */
  readonly base: string;
}

const TOUCHED_KEYS: ReadonlySet<string> = new Set([
  'lastCheckAtMs',
  'lastSuccessAtMs',
  'lastError',
]);
/** Large fields: compared by identity only (a copy of them is a change, written in full). */
const BY_IDENTITY: ReadonlySet<string> = new Set(['installed', 'previous']);

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * True when `next` differs from `known` in the touched fields at most. Small fields compare by
 * value, the installed and previous sets by identity: any doubt is a change, written in full
 * (a full write too many costs time, a floor not written would cost safety).
 */
export function onlyTouched(known: UpdaterState, next: UpdaterState): boolean {
  const a = known as unknown as Record<string, unknown>;
  const b = next as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    if (TOUCHED_KEYS.has(key) || a[key] === b[key]) continue;
    if (BY_IDENTITY.has(key) || JSON.stringify(a[key]) !== JSON.stringify(b[key])) return false;
  }
  return true;
}

const isMs = (v: unknown): v is number | null =>
  v === null || (typeof v === 'number' && Number.isSafeInteger(v));

/** The record in `bytes`, or undefined when it is not one (then it is ignored). */
export function parseTouch(bytes: Uint8Array): TouchRecord | undefined {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const o = json as Record<string, unknown>;
  const { schema, base, lastCheckAtMs, lastSuccessAtMs, lastError } = o;
  if (schema !== 1 || typeof base !== 'string' || !/^[0-9a-f]{64}$/.test(base)) return undefined;
  if (!isMs(lastCheckAtMs) || !isMs(lastSuccessAtMs)) return undefined;
  if (lastError !== null) {
    if (typeof lastError !== 'object' || Array.isArray(lastError)) return undefined;
    const { code, message } = lastError as Record<string, unknown>;
    if (typeof code !== 'string' || typeof message !== 'string') return undefined;
    const error = { code: code as UpdateErrorCode, message };
    return { schema, base, lastCheckAtMs, lastSuccessAtMs, lastError: error };
  }
  return { schema, base, lastCheckAtMs, lastSuccessAtMs, lastError: null };
}

/** What the wrapper knows to be on disk: the merged state and its state file's digest. */
interface Known {
  readonly state: UpdaterState;
  /** SHA-256 of the state file's bytes; undefined until needed (hashed or read then). */
  base: string | undefined;
  /** The state file's bytes as loaded, kept until hashed (undefined: none, or read again). */
  bytes?: Uint8Array | undefined;
}

/** A store whose load also hands back the state file bytes it parsed (file-store.ts). */
export interface StateBytesSource {
  loadStateAndBytes(): Promise<{ state: UpdaterState; bytes: Uint8Array | undefined }>;
}

/**
 * `store` with the last-run record: loadState applies a record that amends the state file on
 * disk, and saveState of a state that differs from the one last loaded or saved only in the
 * touched fields writes the record instead of the state file. The digest is taken of the bytes
 * the load parsed: one read of the state file per run, not two (docs/UPDATER.md §3, No-op runs).
 */
export function withTouchRecord(
  store: LocalStore & StateBytesSource,
  paths: StateDirPaths,
): Required<LocalStore> {
  const touch = new TouchRecorder(store, paths);
  return {
    ...bindAll(store),
    loadState: () => touch.loadState(),
    saveState: (next) => touch.saveState(next),
    commitSet: (set, next) => touch.writing(() => store.commitSet(set, next)),
    switchSet: (dir, next) => touch.writing(() => store.switchSet(dir, next)),
  };
}

/** The state of withTouchRecord's wrapper: what it knows to be on disk, and its two steps. */
class TouchRecorder {
  private readonly store: LocalStore & StateBytesSource;
  private readonly paths: StateDirPaths;
  private readonly touchPath: string;
  private known: Known | undefined;

  constructor(store: LocalStore & StateBytesSource, paths: StateDirPaths) {
    this.store = store;
    this.paths = paths;
    this.touchPath = join(paths.meta, TOUCH_FILE);
  }

  /** The state file's state, amended by a record made over exactly those bytes. */
  async loadState(): Promise<UpdaterState> {
    this.known = undefined;
    const loaded = await this.store.loadStateAndBytes();
    const { state } = loaded;
    const bytes = await io('read the last-run record', () => readNoFollow(this.touchPath));
    const touch = bytes === undefined ? undefined : parseTouch(bytes);
    if (touch === undefined) {
      this.known = { state, base: undefined, bytes: loaded.bytes };
      return state;
    }
    const base = loaded.bytes === undefined ? undefined : sha256Hex(loaded.bytes);
    if (base !== touch.base) {
      this.known = { state, base };
      return state;
    }
    const { lastCheckAtMs, lastSuccessAtMs, lastError } = touch;
    const merged: UpdaterState = { ...state, lastCheckAtMs, lastSuccessAtMs, lastError };
    this.known = { state: merged, base };
    return merged;
  }

  /** Writes the record when only the touched fields changed, else the whole state file. */
  async saveState(next: UpdaterState): Promise<void> {
    const was = this.known;
    if (was === undefined || !onlyTouched(was.state, next)) {
      await this.writing(() => this.store.saveState(next), { state: next, base: undefined });
      return;
    }
    this.known = undefined;
    await this.digestOf(was);
    if (was.base === undefined) {
      // No state file yet: the whole state is written (it is small then).
      await this.store.saveState(next);
      this.known = { state: next, base: undefined };
      return;
    }
    const record: TouchRecord = {
      schema: 1,
      base: was.base,
      lastCheckAtMs: next.lastCheckAtMs,
      lastSuccessAtMs: next.lastSuccessAtMs,
      lastError: next.lastError,
    };
    await io('write the last-run record', () =>
      writeFileAtomic(this.touchPath, `${JSON.stringify(record)}\n`),
    );
    this.known = { state: next, base: was.base };
  }

  /** Runs a write that leaves the disk unknown until it succeeds. */
  async writing(write: () => Promise<void>, after?: Known): Promise<void> {
    this.known = undefined;
    await write();
    this.known = after;
  }

  /** The digest of `was`: of the bytes it was loaded from, or read from disk after a save. */
  private async digestOf(was: Known): Promise<string | undefined> {
    if (was.base === undefined && was.bytes !== undefined) was.base = sha256Hex(was.bytes);
    was.bytes = undefined;
    return (was.base ??= await io('read the state file', () => this.stateDigest()));
  }

  private async stateDigest(): Promise<string | undefined> {
    try {
      return sha256Hex(await readFile(this.paths.state));
    } catch (error) {
      if (errno(error) === 'ENOENT') return undefined;
      throw error;
    }
  }
}

/**
 * The store's methods bound to it, so the spread above keeps a class instance's `this`.
 * Required: a wrapper that forgot an optional method would drop it silently (settleBlobs was).
 */
function bindAll(store: LocalStore): Required<LocalStore> {
  return {
    loadState: () => store.loadState(),
    saveState: (state) => store.saveState(state),
    hasBlob: (sha256, size) => store.hasBlob(sha256, size),
    openPartial: (sha256, size) => store.openPartial(sha256, size),
    storeVerified: (sha256, size, bytes) => storeVerified(store, sha256, size, bytes),
    settleBlobs: () => store.settleBlobs?.() ?? Promise.resolve(),
    expectSet: (set) => store.expectSet?.(set) ?? Promise.resolve(),
    commitSet: (set, next) => store.commitSet(set, next),
    switchSet: (dir, next) => store.switchSet(dir, next),
    checkInstalled: (artifacts) => store.checkInstalled(artifacts),
    loadEnvelope: (setId) => store.loadEnvelope(setId),
    saveEnvelope: (setId, envelope) => store.saveEnvelope(setId, envelope),
    scanInstalled: () => store.scanInstalled(),
    appendAudit: (record) => store.appendAudit(record),
  };
}
