/**
 * What the loop answers from the state alone, with no network and no pull: the status, and the
 * rollback to the previous set (docs/UPDATER.md §3, Rollback).
 */
import { UpdateError } from '../errors.js';
import type { LocalStore } from '../ports.js';
import { setDir } from '../state.js';
import type { UpdaterStatus } from '../updater-api.js';

/** The status of the state directory; `running` comes from the run queue. */
export async function statusOf(store: LocalStore, running: boolean): Promise<UpdaterStatus> {
  const state = await store.loadState();
  return {
    installedVersion: state.installed?.version ?? null,
    highestAcceptedVersion: state.highestAcceptedVersion,
    lastCheckAtMs: state.lastCheckAtMs,
    lastSuccessAtMs: state.lastSuccessAtMs,
    lastError: state.lastError,
    running,
    canRollBack: state.previous !== null,
    probation:
      state.health.probation === null
        ? null
        : {
            version: state.health.probation.version,
            mode: state.health.probation.mode,
            startedAtMs: state.health.probation.startedAtMs,
            deadlineAtMs: state.health.probation.deadlineAtMs,
          },
    badVersions: Object.entries(state.health.badVersions).map(([version, bad]) => ({
      version,
      reason: bad.reason,
      atMs: bad.atMs,
    })),
  };
}

/** Switches back to the previous set, which is then no longer kept. */
export async function rollBack(store: LocalStore): Promise<{ version: string | null }> {
  const state = await store.loadState();
  const target = state.previous;
  if (target === null) throw new UpdateError('NOTHING_TO_ROLL_BACK', 'no previous set kept');
  // The rollback floor stays where it is: rolling back the files is not accepting an old
  // manifest, and the next update() re-applies the newest accepted one.
  await store.switchSet(setDir(target), {
    ...state,
    installed: target,
    previous: null,
    // A set rolled away from is no longer on probation (nor is the one restored).
    health: { ...state.health, probation: null },
  });
  return { version: target.version };
}
