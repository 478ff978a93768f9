/**
 * The pull of an update starts while its acceptance is being made durable (docs/UPDATER.md §3,
 * Requests before `accepted-recorded`): requests may leave, nothing may reach the disk. Every
 * write of the run's stores waits on one gate, the acceptance's record; reads pass. A member
 * that arrives meanwhile waits in the pull's bounded write window (pack-pull.ts), whose full
 * window stops the reading, so the socket's backpressure holds the rest. If the record fails,
 * the pull is aborted, no write ever ran, and the record's error is the run's.
 */
import type { ChunkPorts, ChunkStore } from '../chunks/index.js';
import type { LocalStore } from '../ports.js';
import { storeVerified } from '../store-verified.js';
import type { RunContext } from './run-context.js';

/** `write`, run only once `gate` has resolved (and failing with it). */
function after(gate: Promise<void>) {
  return <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await gate;
      return write(...args);
    };
}

/** `store` whose every write first waits for `gate` (and fails with it); reads go straight. */
export function gateWrites(store: LocalStore, gate: Promise<void>): Required<LocalStore> {
  const held = after(gate);
  // Spelled out, not a loop over keys: a method added to the port must be sorted here into
  // read or write, and the compiler asks (Required), so none slips through ungated.
  return {
    loadState: () => store.loadState(),
    hasBlob: (sha256, size) => store.hasBlob(sha256, size),
    checkInstalled: (artifacts) => store.checkInstalled(artifacts),
    loadEnvelope: (setId) => store.loadEnvelope(setId),
    scanInstalled: () => store.scanInstalled(),
    saveState: held((state) => store.saveState(state)),
    openPartial: held((sha256, size) => store.openPartial(sha256, size)),
    storeVerified: held((sha256, size, bytes) => storeVerified(store, sha256, size, bytes)),
    expectSet: held((set) => store.expectSet?.(set) ?? Promise.resolve()),
    settleBlobs: held(() => store.settleBlobs?.() ?? Promise.resolve()),
    commitSet: held((set, next) => store.commitSet(set, next)),
    switchSet: held((dir, next) => store.switchSet(dir, next)),
    saveEnvelope: held((setId, envelope) => store.saveEnvelope(setId, envelope)),
    appendAudit: held((record) => store.appendAudit(record)),
  };
}

/**
 * The chunk store gated alike. `localChunks` counts as a write: the adapter may cache the
 * trees it computes, so chunk planning waits for the record too.
 */
function gateChunkWrites(store: ChunkStore, gate: Promise<void>): ChunkStore {
  const held = after(gate);
  return {
    localChunks: held((params, layout) => store.localChunks(params, layout)),
    rememberTree: held((...args: Parameters<ChunkStore['rememberTree']>) =>
      store.rememberTree(...args),
    ),
    keepPublishedTree: held((...args: Parameters<ChunkStore['keepPublishedTree']>) =>
      store.keepPublishedTree(...args),
    ),
    openChunkedPartial: held((...args: Parameters<ChunkStore['openChunkedPartial']>) =>
      store.openChunkedPartial(...args),
    ),
    readBlob: (...args) => store.readBlob(...args),
    closeReads: () => store.closeReads(),
  };
}

/** Aborts when `outer` does, or when told; the pull's own signal. */
function linkedAbort(outer: AbortSignal): { signal: AbortSignal; abort(reason: unknown): void } {
  const controller = new AbortController();
  const follow = (): void => controller.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => {
      outer.removeEventListener('abort', follow);
      controller.abort(reason);
    },
  };
}

/**
 * Runs `body` (the pull and commit of an accepted set) over `run` with every store write held
 * until `record()` has resolved, `record()` started at once beside it. Settles only once both
 * have: a failed record aborts the pull and is thrown; otherwise the pull's own outcome is.
 * No failure is ever recorded while the acceptance is still being written.
 */
export async function pullWhileRecording<T>(
  run: RunContext,
  record: () => Promise<void>,
  body: (gated: RunContext) => Promise<T>,
): Promise<T> {
  const linked = linkedAbort(run.signal);
  const recorded = record();
  // Handled here once, so a record that fails while no write waits is no unhandled rejection;
  // each waiting write still receives the failure.
  const gate = recorded.then(() => undefined);
  gate.catch(() => undefined);
  const chunks: ChunkPorts | undefined =
    run.chunks === undefined
      ? undefined
      : { ...run.chunks, store: gateChunkWrites(run.chunks.store, gate) };
  const gated: RunContext = {
    ...run,
    store: gateWrites(run.store, gate),
    signal: linked.signal,
    chunks,
  };
  const pulling = body(gated);
  const [wrote, pulled] = await Promise.allSettled([
    recorded.catch((error: unknown) => {
      linked.abort(error);
      throw error;
    }),
    pulling,
  ]);
  if (wrote.status === 'rejected') throw wrote.reason;
  if (pulled.status === 'rejected') throw pulled.reason;
  return pulled.value;
}
