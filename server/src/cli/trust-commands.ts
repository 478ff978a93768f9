/**
 * Runs the key commands of the command line (docs/PROTOCOL.md §2.7.8) and prints their one
 * JSON result line on stdout. Nothing secret is printed: key ids and public keys only.
 */
import { ServerClock } from '../platform/clock.js';
import { createRandom } from '../platform/random.js';
import type { TrustCommand } from './trust-args.js';
import { rotateKeys } from '../updates/keys/rotate-keys.js';
import { signRelease } from '../updates/publish/sign-release.js';
import { signTargetsFile } from '../updates/tuf/targets-command.js';

export async function runTrustCommand(command: TrustCommand): Promise<void> {
  const random = createRandom(undefined);
  const clock = new ServerClock();
  if (command.kind === 'rotate-keys') {
    const result = await rotateKeys(command, random, () => clock.now());
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const result = await signRelease(command, random);
  // TUF targets for the same release (docs/PROTOCOL.md §TUF repository, Roles and keys).
  const tufTargets =
    command.tufTargets === undefined
      ? undefined
      : await signTargetsFile(
          {
            releaseKeyFiles: command.releaseKeyFiles,
            bundleFile: result.out,
            targetsFile: command.tufTargets,
            version: command.tufTargetsVersion,
          },
          random,
          clock.now(),
        );
  process.stdout.write(
    `${JSON.stringify({ ...result, ...(tufTargets === undefined ? {} : { tuf_targets: tufTargets }) })}\n`,
  );
}
