/**
 * Where trust starts for a state directory (docs/PROTOCOL.md §TUF repository, "Client"): the
 * TUF metadata lives in DIR/.updater/tuf/ as plain `root.json`, `timestamp.json`,
 * `snapshot.json`, `targets.json`, each written atomically. A `--trusted-root` file (or the
 * app's shipped root) is copied there on the first run; later runs use the stored root, which
 * the workflow walks forward itself (TUF spec §5.3). A given root is checked first: it must be
 * root metadata signed by a threshold of its own root keys (TUF spec §5.2), else
 * TRUSTED_ROOT_INVALID.
 */
import { join } from 'node:path';
import { UpdateError } from '#core/errors.js';
import { fromTufError } from '#core/trust/index.js';
import { parseEnvelope, requireThreshold, type Envelope, type Root } from '#protocol/tuf/index.js';
import { ensureRealDir } from '../fs/index.js';
import { FileMetadataStore } from './file-metadata-store.js';

/** The TUF metadata directory of a state directory's `.updater` folder. */
export function tufDirOf(metaDir: string): string {
  return join(metaDir, 'tuf');
}

/** What installing a given root did. */
export type RootOutcome = 'none' | 'stored' | 'installed' | 'replaced' | 'ignored';

/** Parses a root the user gave and checks its self-signature; TRUSTED_ROOT_INVALID if not. */
export function checkGivenRoot(bytes: Uint8Array): Envelope<Root> {
  try {
    const root = parseEnvelope(bytes, 'root');
    requireThreshold(root, root.signed.keys, root.signed.roles.root, 'root');
    return root;
  } catch (error) {
    const mapped = fromTufError(error, 0);
    throw new UpdateError(
      'TRUSTED_ROOT_INVALID',
      `the trusted root is not valid: ${mapped.message}`,
      {
        cause: error,
        details: mapped.details,
      },
    );
  }
}

/**
 * Opens DIR/.updater/tuf (a real directory, never a link) and settles its root with `given`:
 * none stored -> `given` is stored ('installed'); a stored root -> kept, and a `given` one of
 * no higher version is ignored ('ignored'); a `given` root of a higher version replaces it and
 * the stored timestamp, snapshot and targets are dropped ('replaced': the operator's new
 * anchor starts a new chain, as a key rotation does, TUF spec §5.3.11). The caller holds the
 * state directory's lock.
 */
export async function settleTrustedRoot(
  metaDir: string,
  given: Uint8Array | undefined,
): Promise<{ store: FileMetadataStore; outcome: RootOutcome }> {
  const checked = given === undefined ? undefined : checkGivenRoot(given);
  const dir = tufDirOf(metaDir);
  await ensureRealDir(dir);
  const store = new FileMetadataStore(dir);
  const storedBytes = await store.read('root');
  if (checked === undefined)
    return { store, outcome: storedBytes === undefined ? 'none' : 'stored' };
  if (storedBytes === undefined) {
    await store.write('root', checked.raw);
    return { store, outcome: 'installed' };
  }
  let storedVersion: number;
  try {
    storedVersion = parseEnvelope(storedBytes, 'root').signed.version;
  } catch (cause) {
    throw new UpdateError('STATE_CORRUPT', 'the stored TUF root does not parse', {
      cause,
      details: { path: store.pathOf('root') },
    });
  }
  if (checked.signed.version <= storedVersion) return { store, outcome: 'ignored' };
  for (const role of ['timestamp', 'snapshot', 'targets']) await store.remove(role);
  await store.write('root', checked.raw);
  return { store, outcome: 'replaced' };
}
