/**
 * Installed-tree audit: re-verifies the signed bytes the installed set came from (a format 1
 * envelope under today's pinned keys, a format 2 release under the trusted key set's release
 * role) and re-hashes every file under DIR/current against them. Reports each missing,
 * modified or unexpected file; changes nothing.
 */
import { UpdateError } from '../errors.js';
import type { LocalStore } from '../ports.js';
import type { VerifyReport } from '../updater-api.js';
import type { MetadataStore, TufClientConfig } from '../tuf/index.js';
import { looksLikeTuf, verifyStoredTargets } from './tuf-installed.js';
import { verifyStoredManifest, type PinnedKey } from './verify.js';

/**
 * Compares DIR/current with the manifest of the installed set. `tuf`: the TUF metadata store,
 * for a set installed from TUF targets (tuf-installed.ts); `nowMs` only names the clock in a
 * refusal; `config` gives the release walk its limits.
 */
export async function verifyInstalled(
  store: LocalStore,
  pinned: readonly PinnedKey[],
  tuf?: {
    readonly store: MetadataStore;
    readonly nowMs: number;
    readonly config?: Partial<TufClientConfig> | undefined;
  },
): Promise<VerifyReport> {
  const state = await store.loadState();
  const installed = state.installed;
  if (installed === null) throw new UpdateError('NOT_INSTALLED', 'nothing is installed yet');
  const envelope = await store.loadEnvelope(installed.setId);
  if (envelope === undefined) {
    throw new UpdateError('STATE_CORRUPT', 'the installed set has no signed manifest on disk');
  }
  const record =
    tuf !== undefined && looksLikeTuf(envelope)
      ? await verifyStoredTargets(envelope, await tuf.store.read('root'), tuf.nowMs, tuf.config)
      : verifyStoredManifest(envelope, state, pinned);
  if (record.digest !== installed.setId) {
    throw new UpdateError('STATE_CORRUPT', 'stored manifest does not match the installed set');
  }
  const onDisk = new Map((await store.scanInstalled()).map((f) => [f.name, f]));
  const drift: { name: string; problem: 'missing' | 'modified' | 'unexpected' }[] = [];
  for (const a of record.artifacts) {
    const file = onDisk.get(a.name);
    onDisk.delete(a.name);
    if (file === undefined) drift.push({ name: a.name, problem: 'missing' });
    else if (file.size !== a.size || file.sha256 !== a.sha256) {
      drift.push({ name: a.name, problem: 'modified' });
    }
  }
  for (const name of onDisk.keys()) drift.push({ name, problem: 'unexpected' });
  return { version: record.version, ok: drift.length === 0, drift };
}
