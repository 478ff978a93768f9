/**
 * Runs the key commands of the command line (docs/PROTOCOL.md §2.7.8) and prints their one
 * JSON result line on stdout. Nothing secret is printed: key ids and public keys only.
 */
import { createRandom } from '../platform/random.js';
import type { TrustCommand } from './trust-args.js';
import { rotateKeys } from '../updates/keys/rotate-keys.js';
import { signRelease } from '../updates/publish/sign-release.js';

export async function runTrustCommand(command: TrustCommand): Promise<void> {
  const random = createRandom(undefined);
  const result =
    command.kind === 'sign-release'
      ? await signRelease(command, random)
      : await rotateKeys(command, random);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
