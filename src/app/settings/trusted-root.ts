/**
 * The settings screen's trusted root (docs/DESKTOP.md "Settings", trusted root): a TUF
 * root.json the user picks or pastes, judged as the CLI's `--trusted-root` is (our strict TUF
 * parser, then a threshold of its own root keys, TUF spec §5.2) before it is kept; the core
 * then starts trust from it (open-updater.ts). The tray app keeps it in its data directory
 * (`trusted-root.json`, written atomically), the web window in its process's memory, as each
 * keeps the other settings.
 */
import { readFile, rm } from 'node:fs/promises';
import { isTufError, parseEnvelope, requireThreshold } from '#protocol/tuf/index.js';
import { writeFileAtomic } from '#shared/atomic-file.js';

/** Where the kept root is, and how it is kept. */
export interface TrustedRootStore {
  /** The kept root's bytes, or null when none is kept. */
  load(): Uint8Array | null;
  /** Keeps `bytes` (an accepted root) in place of the kept one. */
  save(bytes: Uint8Array): Promise<void>;
  /** Keeps none any more (nothing kept: nothing to do). */
  forget(): Promise<void>;
}

export type RootJudgement =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly words: string };

/** Judges root.json text in plain words: readable TUF root metadata signed by its own keys. */
export function judgeTrustedRoot(text: string): RootJudgement {
  const bytes = new TextEncoder().encode(text.trim());
  let root;
  try {
    root = parseEnvelope(bytes, 'root');
  } catch (error) {
    if (!isTufError(error)) throw error;
    return { ok: false, words: `This is not a TUF root.json: ${error.message} (${error.code}).` };
  }
  const { threshold, keyids } = root.signed.roles.root;
  try {
    requireThreshold(root, root.signed.keys, root.signed.roles.root, 'root');
  } catch (error) {
    if (!isTufError(error)) throw error;
    return {
      ok: false,
      words: `This root is not signed by ${threshold} of its own ${keyids.length} root keys, so it cannot start trust (${error.code}).`,
    };
  }
  return { ok: true, bytes };
}

/** What the screen says of a kept root; '' when none is kept. */
export function trustedRootSummary(bytes: Uint8Array | null): string {
  if (bytes === null) return '';
  try {
    const { version, roles } = parseEnvelope(bytes, 'root').signed;
    const { threshold, keyids } = roles.root;
    return `A trusted root is kept (version ${version}, ${threshold} of ${keyids.length} root keys): leave the field empty to keep it, or tick "Forget the kept root".`;
  } catch {
    // Said, not hidden: the way out (a new root, or forgetting it) must stay on the screen.
    return 'The kept trusted root can no longer be read: give a new root.json, or tick "Forget the kept root".';
  }
}

/** The tray app's store: `path` in its data directory, read once at start. */
export async function fileTrustedRoot(path: string): Promise<TrustedRootStore> {
  let kept: Uint8Array | null = null;
  try {
    kept = new Uint8Array(await readFile(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return {
    load: () => kept,
    async save(bytes) {
      await writeFileAtomic(path, bytes);
      kept = bytes;
    },
    async forget() {
      // Removed before it counts as forgotten: a failed removal keeps it kept, and said so.
      await rm(path, { force: true });
      kept = null;
    },
  };
}

/** The web window's store: this process's memory only (nothing is written to disk). */
export function memoryTrustedRoot(): TrustedRootStore {
  let kept: Uint8Array | null = null;
  return {
    load: () => kept,
    save(bytes) {
      kept = bytes;
      return Promise.resolve();
    },
    forget() {
      kept = null;
      return Promise.resolve();
    },
  };
}
