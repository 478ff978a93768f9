/**
 * The state file, `DIR/.updater/state.json` (docs/UPDATER.md §2): read and parsed, with the
 * bytes it was parsed from (state-touch.ts hashes them). Written by the commit journal
 * (commit-journal.ts) and `FileStore.saveState`, always atomically.
 */
import { readFile } from 'node:fs/promises';
import { errnoDetails, UpdateError } from '#core/errors.js';
import { EMPTY_STATE, parseState, type UpdaterState } from '#core/state.js';
import { errno } from '../fs/index.js';

/** Reads state.json; EMPTY_STATE when there is none yet. */
export async function readStateFile(path: string): Promise<UpdaterState> {
  return (await readStateAndBytes(path)).state;
}

/** A loaded state and the state file bytes it was parsed from (state-touch.ts hashes them). */
export interface LoadedState {
  readonly state: UpdaterState;
  /** state.json's bytes; undefined when there is no state file yet (EMPTY_STATE). */
  readonly bytes: Uint8Array | undefined;
}

/** readStateFile, also handing back the bytes it parsed. */
export async function readStateAndBytes(path: string): Promise<LoadedState> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if (errno(error) === 'ENOENT') return { state: EMPTY_STATE, bytes: undefined };
    // Which file and why (EACCES: a mode 000 file, another user's DIR), as every IO error says
    // them (docs/UPDATER.md §7): the bare words left the user to guess.
    const message = error instanceof Error ? error.message : 'failed';
    throw new UpdateError('IO', `cannot read the state file ${path}: ${message}`, {
      cause: error,
      details: { path, ...errnoDetails(error) },
    });
  }
  return { state: parseState(bytes), bytes };
}
