/**
 * rotate-keys as the tests call it: on one data directory, with nothing asked but what the test
 * changes (the options the CLI gives when no flag is set), and the system's randomness.
 */
import { createRandom } from '#server/platform/random.js';
import {
  rotateKeys,
  type RotateKeysOptions,
  type RotateKeysResult,
} from '#server/updates/keys/rotate-keys.js';

export function rotateIn(
  dataDir: string,
  change: Partial<RotateKeysOptions>,
): Promise<RotateKeysResult> {
  const options: RotateKeysOptions = {
    dataDir,
    rootKeyFiles: [],
    newRootKeyFiles: [],
    rootThreshold: undefined,
    releasePubkeys: [],
    newReleaseKey: false,
    releaseThreshold: undefined,
    newFreshnessKey: false,
    ...change,
  };
  return rotateKeys(options, createRandom(undefined));
}
