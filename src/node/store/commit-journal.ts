/**
 * The commit protocol of a state directory (docs/UPDATER.md §3):
 *   1. stage the complete new tree under sets/<dir> (hard links to verified blobs, fsync,
 *      rename from a staging name): DIR/current is untouched;
 *   2. write journal.json = { target set, the full next state } atomically: the intent;
 *   3. switch the live set (current-set.ts): a new DIR/current symlink renamed over the old
 *      one, or a new DIR/current.json renamed over the old one (rename is atomic either way);
 *   4. write state.json atomically; 5. remove the journal; 6. GC unreferenced sets/blobs.
 * A crash before 2 leaves the old set and old state; after 2, `recoverCommit` rolls the journal
 * forward (steps 3-6 are idempotent). So the live set is always one complete set.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoDetails, UpdateError } from '#core/errors.js';
import type { StepHook } from '#core/install/index.js';
import {
  EMPTY_STATE,
  encodeState,
  keepFloor,
  parseState,
  setDir,
  type InstalledArtifact,
  type UpdaterState,
} from '#core/state.js';
import { readStateFile, type LoadedState } from './state-file.js';
import { commitTemp, fsyncDir, writeFileAtomic, writeSyncedTemp } from '#shared/atomic-file.js';
import type { CurrentSet } from './current-set.js';
import { envelopePath, errno, exists } from '../fs/index.js';
import { collectAfterCommit } from './commit-gc.js';
import { allSettled } from './settle-all.js';
import { stageSet } from './set-staging.js';
import { dropStrayTemps } from './stray-temps.js';
import type { StagingTree } from './staging-tree.js';
import type { StateDirPaths } from '../fs/index.js';

/** The intent of a commit: the set directory DIR/current is to name, and the state after. */
interface Journal {
  readonly setId: string;
  readonly state: UpdaterState;
}

export interface CommitContext {
  readonly paths: StateDirPaths;
  /** The swap strategy's view of the live set (symlink or pointer). */
  readonly current: CurrentSet;
  readonly onStep: StepHook | undefined;
}

/** A set to commit: its id, the directory to stage it in (default: the id), its files. */
export interface SetToCommit {
  readonly setId: string;
  readonly dir?: string;
  readonly envelope: Uint8Array;
  readonly artifacts: readonly InstalledArtifact[];
}

/**
 * Crash recovery: migrate a DIR written under the other swap strategy (first, so the journal is
 * replayed in the form it will stay in), roll a journaled commit forward, drop staging trees
 * and the temporary files of atomic writes a kill left (stray-temps.ts).
 */
export async function recoverCommit(ctx: CommitContext): Promise<void> {
  await ctx.current.adopt();
  let bytes: Buffer | undefined;
  try {
    bytes = await readFile(ctx.paths.journal);
  } catch (error) {
    if (errno(error) !== 'ENOENT') throw error;
  }
  if (bytes !== undefined) await applyJournal(ctx, parseJournal(bytes), true);
  for (const entry of await readdir(ctx.paths.sets)) {
    if (entry.includes('.staging'))
      await rm(join(ctx.paths.sets, entry), { recursive: true, force: true });
  }
  await dropStrayTemps(ctx.paths);
}

/**
 * The state as the journal's replay would leave it, read without writing anything: what
 * `status` and `verify` answer from when the replay itself cannot write (a full disk,
 * docs/UPDATER.md §3, A full disk after the swap). The journal's state once its set is live,
 * the state file's before; undefined when there is no journal.
 */
export async function readPendingState(ctx: CommitContext): Promise<UpdaterState | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(ctx.paths.journal);
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    throw error;
  }
  const journal = parseJournal(bytes);
  const onDisk = await readStateFile(ctx.paths.state);
  if ((await ctx.current.live()) !== journal.setId) return onDisk;
  return keepFloor(journal.state, onDisk);
}

/** What the store brings to a commit besides the set (file-store.ts). */
export interface CommitInputs {
  /** The tree the pull staged into (staging-tree.ts), finished here rather than built anew. */
  readonly early?: StagingTree | undefined;
  /** Durable work of the store's own that the journal must wait for (the fsync of blobs/). */
  readonly before?: Promise<void> | undefined;
  /** manifests/<setId>.json holds the envelope already, durably (written during the pull). */
  readonly envelopeKept?: boolean;
}

/** A state and the bytes it is written as. */
interface EncodedState {
  readonly state: UpdaterState;
  readonly bytes: Uint8Array;
}

/**
 * Steps 1-6 for a new set (an update or a repair). What must be durable before the journal
 * (the store's `before`, the staged set, its signed manifest) depends on nothing of each
 * other, so it runs side by side, and the journal waits for all of it. The journal's bytes are
 * known from the start: they are written and synced under a temporary name meanwhile, and
 * given the journal's name (renamed, its directory synced) only after all of it. The state
 * file is written after the swap, as before (docs/UPDATER.md §3, The commit's durable steps
 * side by side).
 */
export async function commitSet(
  ctx: CommitContext,
  set: SetToCommit,
  next: UpdaterState,
  inputs: CommitInputs = {},
): Promise<LoadedState> {
  const dir = setDir(set);
  const staged = async (): Promise<void> => {
    await stageSet(ctx.paths, ctx.current, dir, set.artifacts, inputs.early);
    ctx.onStep?.('set-staged');
  };
  const manifest = (): Promise<void> =>
    writeFileAtomic(envelopePath(ctx.paths, set.setId), set.envelope);
  // The journal names the set's directory: that is what recovery swaps DIR/current to.
  const journal = { setId: dir, state: next };
  const journalTemp = writeSyncedTemp(ctx.paths.journal, journalBytes(journal));
  // Read now, used after the swap: only this commit writes the state file from here on.
  const nextFile = nextState(ctx.paths.state, next);
  try {
    await allSettled([
      inputs.before ?? Promise.resolve(),
      staged(),
      inputs.envelopeKept === true ? Promise.resolve() : manifest(),
      journalTemp,
      nextFile,
    ]);
  } catch (error) {
    // Not named yet: removed, as writeFileAtomic removes its own on a failure.
    const temp = await journalTemp.catch(() => undefined);
    if (temp !== undefined) await rm(temp, { force: true });
    throw error;
  }
  await commitTemp(await journalTemp, ctx.paths.journal);
  ctx.onStep?.('journal-written');
  return applyJournal(ctx, journal, true, await nextFile);
}

/**
 * The next state file: the journal's state, never with a lower floor than the state file's
 * (keepFloor: it may be newer than the journal), and its bytes.
 */
async function nextState(path: string, state: UpdaterState): Promise<EncodedState> {
  const onDisk = await readStateFile(path).catch(() => EMPTY_STATE);
  const next = keepFloor(state, onDisk);
  return { state: next, bytes: encodeState(next) };
}

/** Steps 2-5 for a set already on disk (rollback). */
export async function switchToSet(
  ctx: CommitContext,
  dir: string,
  next: UpdaterState,
): Promise<void> {
  if (!(await exists(join(ctx.paths.sets, dir)))) {
    throw new UpdateError('STATE_CORRUPT', 'the set to switch to is missing on disk');
  }
  await writeJournal(ctx, { setId: dir, state: next });
  // No GC: the set rolled away from stays until the next commit, so a re-update is local.
  await applyJournal(ctx, { setId: dir, state: next }, false);
}

function parseJournal(bytes: Uint8Array): Journal {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (cause) {
    throw new UpdateError('STATE_CORRUPT', 'journal is not JSON', { cause });
  }
  const o = json as { setId?: unknown; state?: unknown };
  if (typeof o.setId !== 'string' || !/^[0-9a-f]{64}$/.test(o.setId)) {
    throw new UpdateError('STATE_CORRUPT', 'journal has no valid set id');
  }
  const state = parseState(new TextEncoder().encode(JSON.stringify(o.state)));
  return { setId: o.setId, state };
}

function journalBytes(journal: Journal): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(journal));
}

async function writeJournal(ctx: CommitContext, journal: Journal): Promise<void> {
  await writeFileAtomic(ctx.paths.journal, journalBytes(journal));
  ctx.onStep?.('journal-written');
}

/**
 * Steps 3-6; idempotent, so recovery may run it again after any crash. `prepared`: the next
 * state file as made from the state file read already (commitSet), else read here.
 */
async function applyJournal(
  ctx: CommitContext,
  journal: Journal,
  gc: boolean,
  prepared?: EncodedState,
): Promise<LoadedState> {
  if (!(await exists(join(ctx.paths.sets, journal.setId)))) {
    // Never point DIR/current at nothing: the journal is only written after staging.
    throw new UpdateError('STATE_CORRUPT', 'the journaled set is missing on disk');
  }
  await ctx.current.switchTo(journal.setId);
  try {
    ctx.onStep?.('current-swapped');
    return await finishCommit(ctx, journal, gc, prepared);
  } catch (error) {
    throw cleanupPending(journal, error);
  }
}

/**
 * A failure after the swap: the journaled set IS live, only its clean-up is left (the journal
 * finishes it at the next read of the state). Said as such, never as a failed install
 * (docs/UPDATER.md §3, A full disk after the swap). Refusals of the data pass through.
 */
function cleanupPending(journal: Journal, error: unknown): unknown {
  if (error instanceof UpdateError && error.code !== 'IO') return error;
  const version = journal.state.installed?.version ?? 'nothing';
  const reason = error instanceof Error ? error.message : 'failed';
  return new UpdateError(
    'CLEANUP_PENDING',
    `${version} is installed; its clean-up is pending (${reason}): free some space, the next run finishes it`,
    {
      cause: error,
      details: {
        installed_version: version,
        set_id: journal.setId,
        ...(error instanceof UpdateError ? error.details : errnoDetails(error)),
      },
    },
  );
}

/** Steps 4-6: the state file, the journal's removal, the GC. */
async function finishCommit(
  ctx: CommitContext,
  journal: Journal,
  gc: boolean,
  prepared?: EncodedState,
): Promise<LoadedState> {
  const { paths } = ctx;
  const written = prepared ?? (await nextState(paths.state, journal.state));
  await writeFileAtomic(paths.state, written.bytes);
  ctx.onStep?.('state-written');
  await rm(paths.journal, { force: true });
  await fsyncDir(paths.meta);
  ctx.onStep?.('journal-removed');
  if (!gc) return written;
  const kept = new Set(
    [journal.state.installed, journal.state.previous].flatMap(
      (set) => set?.artifacts.map((a) => a.sha256) ?? [],
    ),
  );
  await collectAfterCommit(paths, journal.state, kept, ctx.onStep);
  return written;
}
