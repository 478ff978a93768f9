/**
 * One run's view of the state file: parsed once, then handed out again until this run writes
 * it. At 10,000 installed artifacts the state is about 1 MB of JSON, and a run used to parse it
 * up to three times (probation settling, accept, status) (docs/UPDATER.md §3, No-op runs). Only
 * the lock holder writes the state (docs/UPDATER.md §8), so within one run the last state read
 * or written is the one on disk; a commit or switch (whose journal may merge floors,
 * state.ts `keepFloor`) and any failed write drop the memo, so the next read goes to disk.
 */
import type { LocalStore } from '../ports.js';
import type { UpdaterState } from '../state.js';
import { storeVerified } from '../store-verified.js';

/** `store` with loadState memoised for the lifetime of the returned object (one run). */
export function memoizeState(store: LocalStore): Required<LocalStore> {
  let known: UpdaterState | undefined;
  /** Runs a write; the memo holds `after` only once the write has succeeded. */
  const writing = async (write: () => Promise<void>, after?: UpdaterState): Promise<void> => {
    known = undefined;
    await write();
    known = after;
  };
  return {
    async loadState() {
      known ??= await store.loadState();
      return known;
    },
    saveState: (state) => writing(() => store.saveState(state), state),
    commitSet: (set, next) => writing(() => store.commitSet(set, next)),
    switchSet: (dir, next) => writing(() => store.switchSet(dir, next)),
    hasBlob: (sha256, size) => store.hasBlob(sha256, size),
    openPartial: (sha256, size) => store.openPartial(sha256, size),
    storeVerified: (sha256, size, bytes) => storeVerified(store, sha256, size, bytes),
    settleBlobs: () => store.settleBlobs?.() ?? Promise.resolve(),
    expectSet: (set) => store.expectSet?.(set) ?? Promise.resolve(),
    checkInstalled: (artifacts) => store.checkInstalled(artifacts),
    loadEnvelope: (setId) => store.loadEnvelope(setId),
    saveEnvelope: (setId, envelope) => store.saveEnvelope(setId, envelope),
    scanInstalled: () => store.scanInstalled(),
    appendAudit: (record) => store.appendAudit(record),
  };
}
