/**
 * The LocalStore over a state directory. The commit protocol (docs/UPDATER.md §Commit):
 *   1. stage the complete new tree under sets/<setId> (hard links to verified blobs, fsync,
 *      rename from a staging name): DIR/current is untouched;
 *   2. write journal.json = { target set, the full next state } atomically: the intent;
 *   3. swap DIR/current: a new symlink renamed over the old one (rename(2) is atomic);
 *   4. write state.json atomically; 5. remove the journal; 6. GC unreferenced sets/blobs.
 * A crash before 2 leaves the old set and old state; after 2, `open` rolls the journal
 * forward (steps 3-6 are idempotent). So DIR/current is always one complete set.
 */
import {
  copyFile,
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  utimes,
} from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { AuditRecord } from '../core/audit-log.js';
import { UpdateError } from '../core/errors.js';
import type { StepHook } from '../core/install-steps.js';
import type { LocalStore, PartialBlob } from '../core/ports.js';
import {
  EMPTY_STATE,
  keepFloor,
  encodeState,
  parseState,
  setDir,
  type InstalledArtifact,
  type UpdaterState,
} from '../core/state.js';
import { fsyncDir, writeFileAtomic } from '../shared/atomic-file.js';
import { appendAuditFile } from './audit-file.js';
import { BLOB_MTIME_S, isIntactBlob, openPartialBlob } from './partial-blob.js';
import { ensureStateDirs, stateDirPaths, type StateDirPaths } from './state-dir.js';
import { quickCheck, scanTree } from './tree-scan.js';

interface Journal {
  readonly setId: string;
  readonly state: UpdaterState;
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (errno(error) === 'ENOENT') return false;
    throw error;
  }
}

/** Wraps file-system failures as IO (UpdateErrors pass through). */
async function io<T>(what: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UpdateError) throw error;
    const message = error instanceof Error ? error.message : 'failed';
    throw new UpdateError('IO', `${what}: ${message}`, { cause: error });
  }
}

export class FileStore implements LocalStore {
  private constructor(
    readonly paths: StateDirPaths,
    private readonly onStep: StepHook | undefined,
    private readonly onWritten: ((bytes: number) => void) | undefined,
  ) {}

  /**
   * Opens DIR (creating it), then finishes any commit a crash interrupted. `onWritten` is told
   * the bytes of each append to a partial download (read-buffer-gc.ts paces a GC on it).
   */
  static async open(
    dir: string,
    onStep?: StepHook,
    onWritten?: (bytes: number) => void,
  ): Promise<FileStore> {
    const store = new FileStore(stateDirPaths(dir), onStep, onWritten);
    await io('prepare the state directory', () => ensureStateDirs(store.paths));
    await store.recover();
    return store;
  }

  /** Crash recovery: roll a journaled commit forward; drop half-built staging trees. */
  async recover(): Promise<void> {
    await io('recover', async () => {
      let bytes: Buffer | undefined;
      try {
        bytes = await readFile(this.paths.journal);
      } catch (error) {
        if (errno(error) !== 'ENOENT') throw error;
      }
      if (bytes !== undefined) {
        const journal = this.parseJournal(bytes);
        await this.applyJournal(journal, true);
      }
      for (const entry of await readdir(this.paths.sets)) {
        if (entry.includes('.staging'))
          await rm(join(this.paths.sets, entry), { recursive: true, force: true });
      }
    });
  }

  private parseJournal(bytes: Uint8Array): Journal {
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

  async loadState(): Promise<UpdaterState> {
    // A commit that failed part-way in this process (ENOSPC, EIO) leaves its journal: finish
    // it before anything reads the state, not only at the next start (docs/UPDATER.md §3).
    if (await exists(this.paths.journal)) await this.recover();
    return this.readStateFile();
  }

  private async readStateFile(): Promise<UpdaterState> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.paths.state);
    } catch (error) {
      if (errno(error) === 'ENOENT') return EMPTY_STATE;
      throw new UpdateError('IO', 'cannot read the state file', { cause: error });
    }
    return parseState(bytes);
  }

  async saveState(state: UpdaterState): Promise<void> {
    await io('write the state file', () => writeFileAtomic(this.paths.state, encodeState(state)));
  }

  async hasBlob(sha256: string, size: number): Promise<boolean> {
    try {
      return isIntactBlob(await stat(join(this.paths.blobs, sha256)), size);
    } catch {
      return false;
    }
  }

  openPartial(sha256: string, size: number): Promise<PartialBlob> {
    return io('open a partial download', () =>
      openPartialBlob(
        { partialDir: this.paths.partial, blobDir: this.paths.blobs },
        sha256,
        size,
        this.onStep,
        this.onWritten,
      ),
    );
  }

  async commitSet(
    set: {
      readonly setId: string;
      readonly dir?: string;
      readonly envelope: Uint8Array;
      readonly artifacts: readonly InstalledArtifact[];
    },
    next: UpdaterState,
  ): Promise<void> {
    const dir = set.dir ?? set.setId;
    await io('commit', async () => {
      await this.stage(dir, set.artifacts);
      this.onStep?.('set-staged');
      await writeFileAtomic(join(this.paths.manifests, `${set.setId}.json`), set.envelope);
      // The journal names the set's directory: that is what recovery swaps DIR/current to.
      await this.writeJournal({ setId: dir, state: next });
      await this.applyJournal({ setId: dir, state: next }, true);
    });
  }

  checkInstalled(artifacts: readonly InstalledArtifact[]): Promise<readonly string[]> {
    return io('check the installed set', () => quickCheck(this.paths.current, artifacts));
  }

  async switchSet(dir: string, next: UpdaterState): Promise<void> {
    await io('switch sets', async () => {
      if (!(await exists(join(this.paths.sets, dir)))) {
        throw new UpdateError('STATE_CORRUPT', 'the set to switch to is missing on disk');
      }
      await this.writeJournal({ setId: dir, state: next });
      // No GC: the set rolled away from stays until the next commit, so a re-update is local.
      await this.applyJournal({ setId: dir, state: next }, false);
    });
  }

  async loadEnvelope(setId: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(join(this.paths.manifests, `${setId}.json`));
    } catch {
      return undefined;
    }
  }

  scanInstalled(): Promise<readonly InstalledArtifact[]> {
    return io('scan the installed set', () => scanTree(this.paths.current));
  }

  appendAudit(record: AuditRecord): Promise<void> {
    return io('append to the audit log', () => appendAuditFile(this.paths.audit, record));
  }

  /**
   * Builds sets/<setId> from blobs. An existing directory is reused only when it is the live
   * DIR/current; any other one (a set kept after a rollback) may have been written to since, and
   * its hard links may share a tampered inode, so it is rebuilt from the verified blobs.
   */
  private async stage(setId: string, artifacts: readonly InstalledArtifact[]): Promise<void> {
    const target = join(this.paths.sets, setId);
    const kept = await exists(target);
    if (kept && (await this.isCurrent(setId))) return;
    const staging = `${target}.staging`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { mode: 0o755 });
    const dirs = new Set<string>([staging]);
    for (const a of artifacts) {
      // Names passed unsafeNameReason in parseManifest: relative, no "..", no backslash.
      const path = join(staging, ...a.name.split('/'));
      const parent = dirname(path);
      if (!dirs.has(parent)) {
        await mkdir(parent, { recursive: true, mode: 0o755 });
        dirs.add(parent);
      }
      const blob = join(this.paths.blobs, a.sha256);
      const info = await stat(blob).catch(() => undefined);
      if (info === undefined || !isIntactBlob(info, a.size)) {
        throw new UpdateError('IO', `blob of ${a.name} is missing or was modified`);
      }
      try {
        await link(blob, path);
      } catch {
        // File systems without hard links: a copy, given the sentinel so quickCheck holds.
        await copyFile(blob, path);
        await utimes(path, BLOB_MTIME_S, BLOB_MTIME_S);
      }
    }
    for (const dir of dirs) await fsyncDir(dir);
    if (kept) {
      // Moved aside, not deleted in place: recover() drops any "*.staging*" left by a crash.
      const old = `${target}.staging-old`;
      await rm(old, { recursive: true, force: true });
      await rename(target, old);
      await rename(staging, target);
      await rm(old, { recursive: true, force: true });
    } else {
      await rename(staging, target);
    }
    await fsyncDir(this.paths.sets);
  }

  private async isCurrent(setId: string): Promise<boolean> {
    const linkTarget = relative(this.paths.root, join(this.paths.sets, setId));
    try {
      return (await readlink(this.paths.current)) === linkTarget;
    } catch {
      return false;
    }
  }

  private async writeJournal(journal: Journal): Promise<void> {
    await writeFileAtomic(this.paths.journal, new TextEncoder().encode(JSON.stringify(journal)));
    this.onStep?.('journal-written');
  }

  /** Steps 3-6; idempotent, so recovery may run it again after any crash. */
  private async applyJournal(journal: Journal, gc: boolean): Promise<void> {
    if (!(await exists(join(this.paths.sets, journal.setId)))) {
      // Never point DIR/current at nothing: the journal is only written after staging.
      throw new UpdateError('STATE_CORRUPT', 'the journaled set is missing on disk');
    }
    await this.swapCurrent(journal.setId);
    this.onStep?.('current-swapped');
    // Never lower the floor: the state file may be newer than the journal (keepFloor).
    const onDisk = await this.readStateFile().catch(() => EMPTY_STATE);
    await writeFileAtomic(this.paths.state, encodeState(keepFloor(journal.state, onDisk)));
    this.onStep?.('state-written');
    await rm(this.paths.journal, { force: true });
    await fsyncDir(this.paths.meta);
    this.onStep?.('journal-removed');
    if (gc) {
      await this.collectGarbage(journal.state);
      this.onStep?.('gc-done');
    }
  }

  private async swapCurrent(setId: string): Promise<void> {
    const linkTarget = relative(this.paths.root, join(this.paths.sets, setId));
    try {
      if ((await readlink(this.paths.current)) === linkTarget) return;
    } catch (error) {
      if (errno(error) === 'EINVAL') {
        throw new UpdateError('IO', `${this.paths.current} exists and is not our symlink`);
      }
      if (errno(error) !== 'ENOENT') throw error;
    }
    const tmp = `${this.paths.current}.next`;
    await rm(tmp, { force: true });
    await symlink(linkTarget, tmp, 'dir');
    await rename(tmp, this.paths.current);
    await fsyncDir(this.paths.root);
  }

  /** Keeps what the installed and previous sets reference; removes the rest. */
  private async collectGarbage(state: UpdaterState): Promise<void> {
    const sets = new Set<string>();
    const dirs = new Set<string>();
    const blobs = new Set<string>();
    for (const set of [state.installed, state.previous]) {
      if (set === null) continue;
      sets.add(set.setId);
      dirs.add(setDir(set));
      for (const a of set.artifacts) blobs.add(a.sha256);
    }
    for (const entry of await readdir(this.paths.sets)) {
      if (!dirs.has(entry))
        await rm(join(this.paths.sets, entry), { recursive: true, force: true });
    }
    for (const entry of await readdir(this.paths.manifests)) {
      if (!sets.has(entry.replace(/\.json$/, '')))
        await rm(join(this.paths.manifests, entry), { force: true });
    }
    for (const entry of await readdir(this.paths.blobs)) {
      if (!blobs.has(entry)) await rm(join(this.paths.blobs, entry), { force: true });
    }
    // Every blob the new set needs is in place, so any partial left is stale.
    for (const entry of await readdir(this.paths.partial)) {
      await rm(join(this.paths.partial, entry), { force: true });
    }
  }
}
