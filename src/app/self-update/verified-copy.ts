/**
 * Copies an installer out of the installed set, proven to be the signed bytes (docs/RELEASING.md
 * "Self-update targets"). The core verified the file when it installed the release (signature,
 * hash, rollback floor); here, before anything runs:
 * 1. the file is copied to `tempPath` (created new, never followed through a link), hashed as
 *    it is written, and synced;
 * 2. the core re-hashes the installed set against the last accepted signed manifest
 *    (`verify()`), and the installer must not be among the drift;
 * 3. the installed file is hashed again and must equal the copy.
 * So the copy holds the bytes the core found signed, even if the file changed in between. Any
 * failure removes the copy.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { SelfUpdateError } from './self-update-error.js';

/** The slice of the core's verify() report used here (src/node/index.ts VerifyReport). */
export interface InstalledVerifyReport {
  readonly version: string | null;
  readonly drift: readonly { readonly name: string; readonly problem: string }[];
}

export interface VerifiedCopyInput {
  /** Absolute path of the installer inside the installed set. */
  readonly source: string;
  /** Its name in the release (`app/linux-x64/…`), as verify() reports drift. */
  readonly name: string;
  /** Where the copy goes; must not exist. */
  readonly tempPath: string;
  readonly verifyInstalled: () => Promise<InstalledVerifyReport>;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Copies and hashes; 'wx' refuses an existing path (and so a planted link). */
async function copyHashed(source: string, target: string): Promise<string> {
  const hash = createHash('sha256');
  const out = await open(target, 'wx', 0o600);
  try {
    for await (const chunk of createReadStream(source)) {
      const bytes = chunk as Buffer;
      hash.update(bytes);
      let written = 0;
      while (written < bytes.length) {
        const { bytesWritten } = await out.write(bytes, written, bytes.length - written);
        written += bytesWritten;
      }
    }
    await out.sync();
  } finally {
    await out.close();
  }
  return hash.digest('hex');
}

/** Returns the sha256 of the verified copy at `tempPath`. */
export async function copyVerified(input: VerifiedCopyInput): Promise<string> {
  let copied: string;
  try {
    copied = await copyHashed(input.source, input.tempPath);
  } catch (cause) {
    await rm(input.tempPath, { force: true });
    throw new SelfUpdateError('NOT_INSTALLED', `${input.name} could not be read`, { cause });
  }
  try {
    const report = await input.verifyInstalled();
    const drift = report.drift.find((entry) => entry.name === input.name);
    if (report.version === null || drift !== undefined) {
      throw new SelfUpdateError(
        'TAMPERED',
        `${input.name} does not match the signed manifest (${drift?.problem ?? 'no release'})`,
      );
    }
    if ((await sha256Of(input.source)) !== copied) {
      throw new SelfUpdateError('TAMPERED', `${input.name} changed while it was copied`);
    }
    return copied;
  } catch (error) {
    await rm(input.tempPath, { force: true });
    throw error;
  }
}
