/**
 * rotate-keys as the tests call it: on one data directory, with nothing asked but what the test
 * changes (the options the CLI gives when no flag is set), the system's randomness and, unless
 * the test gives its own, the system's clock.
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
  now: () => number = () => Date.now(),
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
  return rotateKeys(options, createRandom(undefined), now);
}
