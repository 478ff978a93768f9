/**
 * Who is told when a blob gets or loses its name in a blob directory: the set being staged
 * during a pull (src/node/store/staging-tree.ts, docs/UPDATER.md §3, Staging during the pull).
 * One hook per blob directory, for the life of one pull: the store sets it when the core tells
 * it the set the pull is for (`expectSet`) and clears it at the commit or at the next such call.
 *
 * `arrived` runs right after the rename and before the arrival check's one lstat, so the facts
 * that lstat records are those after the blob's last link (blob-facts.ts `keepIfArrived`). It
 * must be synchronous (nothing may happen between the links and that lstat) and must not
 * throw: a name it could not link is left for the commit to link.
 */
export interface ArrivalHook {
  /** `blobs/<sha256>` at `path` was just renamed into place (not yet checked). */
  arrived(sha256: string, path: string): void;
  /** `blobs/<sha256>` was refused or dropped: whatever `arrived` linked of it is undone. */
  dropped(sha256: string): void;
}

const hooks = new Map<string, ArrivalHook>();

/** Sets (or, with undefined, clears) the hook of `blobDir`. */
export function setArrivalHook(blobDir: string, hook: ArrivalHook | undefined): void {
  if (hook === undefined) hooks.delete(blobDir);
  else hooks.set(blobDir, hook);
}

/** The hook of `blobDir`, if a set is being staged there. */
export function arrivalHookOf(blobDir: string): ArrivalHook | undefined {
  return hooks.size === 0 ? undefined : hooks.get(blobDir);
}
