/**
 * The product's registry_version floor under TUF (docs/SECURITY.md, "Rollback floors under
 * TUF"): the version of the installed set, but only while the targets metadata it came from
 * still meets the threshold of the current root's targets role. A floor set by a stolen
 * targets key therefore ends when the operator rotates that role's keys, as TUF spec §5.3.11
 * ends the timestamp and snapshot floors on their rotation; a set installed under format 1
 * or 2 sets no floor once a TUF root is trusted (the operator's new trust anchor decides).
 */
import { requireThreshold, type Root } from '#protocol/tuf/index.js';
import type { LocalStore } from '../ports.js';
import type { UpdaterState } from '../state.js';
import { registryVersionOf } from './tuf-manifest.js';
import { storedTopTargets } from './tuf-release.js';

/**
 * The floor for a run whose trusted root is `root` and whose new targets digest is `digest`.
 * Unchanged targets need no check: the installed set came from these very bytes.
 */
export async function tufFloor(
  store: LocalStore,
  state: UpdaterState,
  root: Root,
  digest: string,
): Promise<string | null> {
  const installed = state.installed;
  if (installed === null) return null;
  if (installed.setId === digest) return installed.version;
  const bytes = await store.loadEnvelope(installed.setId);
  if (bytes === undefined) return null;
  try {
    const targets = storedTopTargets(bytes);
    requireThreshold(targets, root.keys, root.roles.targets, 'targets');
    return registryVersionOf(targets);
  } catch {
    // Not TUF targets (a format 1/2 set), or no longer vouched for: no floor binds.
    return null;
  }
}
