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

/**
 * Waits (bounded, 5 s) until a running server serves root `version` and a timestamp signed by
 * a key that root lists: the rotation is live. `get` fetches a name under the TUF base.
 */
export async function rotationServed(
  get: (name: string) => Promise<Response>,
  version = 2,
): Promise<void> {
  await waitFor(async () => (await get(`${version}.root.json`)).status === 200);
  await waitFor(async () => {
    const ts = JSON.parse(await (await get('timestamp.json')).text()) as {
      signatures: { keyid: string }[];
    };
    const root = JSON.parse(await (await get(`${version}.root.json`)).text()) as {
      signed: { roles: { timestamp: { keyids: string[] } } };
    };
    return root.signed.roles.timestamp.keyids.includes(ts.signatures[0]?.keyid ?? '');
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting for the server');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
