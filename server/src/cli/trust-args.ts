/**
 * The command lines of the key commands (docs/PROTOCOL.md §2.7.8): `sign-release` and
 * `rotate-keys`. Pure, like main-args.ts, whose flag scanner they share.
 */
import { httpUrl, int, nonEmpty, refuseLeftovers, scan, take, UsageError } from './cli-flags.js';

export type TrustCommand =
  | {
      readonly kind: 'sign-release';
      readonly releaseKeyFiles: readonly string[];
      readonly version: string | undefined;
      readonly folder: string | undefined;
      readonly bundle: string | undefined;
      readonly out: string | undefined;
      readonly artifactBaseUrl: string | undefined;
      /** --previous-bundle FILE: keep the packs of the release the fleet holds. */
      readonly previousBundle: string | undefined;
      /** --tuf-targets FILE: also sign (or co-sign) TUF targets there. */
      readonly tufTargets: string | undefined;
      /** --tuf-targets-version N: sign a new targets version N (else co-sign FILE). */
      readonly tufTargetsVersion: number | undefined;
    }
  | {
      readonly kind: 'rotate-keys';
      readonly dataDir: string;
      readonly rootKeyFiles: readonly string[];
      readonly newRootKeyFiles: readonly string[];
      readonly rootThreshold: number | undefined;
      readonly releasePubkeys: readonly string[];
      readonly newReleaseKey: boolean;
      readonly releaseThreshold: number | undefined;
      readonly newFreshnessKey: boolean;
    };

const SIGN_RELEASE_OPTIONS = {
  'release-key': { type: 'string', multiple: true },
  version: { type: 'string' },
  bundle: { type: 'string' },
  out: { type: 'string' },
  'artifact-base-url': { type: 'string' },
  'previous-bundle': { type: 'string' },
  'tuf-targets': { type: 'string' },
  'tuf-targets-version': { type: 'string' },
} as const;

const ROTATE_KEYS_OPTIONS = {
  'data-dir': { type: 'string' },
  'root-key': { type: 'string', multiple: true },
  'new-root-key': { type: 'string', multiple: true },
  'root-threshold': { type: 'string' },
  'release-pubkey': { type: 'string', multiple: true },
  'new-release-key': { type: 'boolean' },
  'release-threshold': { type: 'string' },
  'new-freshness-key': { type: 'boolean' },
} as const;

const HEX64 = /^[0-9a-f]{64}$/;

export function parseTrustCommand(
  name: 'sign-release' | 'rotate-keys',
  argv: readonly string[],
): TrustCommand {
  return name === 'sign-release' ? parseSignRelease(argv) : parseRotateKeys(argv);
}

function parseSignRelease(argv: readonly string[]): TrustCommand {
  const { flags, lists, rest } = scan(argv, SIGN_RELEASE_OPTIONS);
  const releaseKeyFiles = (lists.get('--release-key') ?? []).map((f) =>
    nonEmpty('--release-key', f),
  );
  const version = take(flags, '--version');
  const bundle = take(flags, '--bundle');
  const out = take(flags, '--out');
  const base = take(flags, '--artifact-base-url');
  const previous = take(flags, '--previous-bundle');
  const tufTargets = take(flags, '--tuf-targets');
  const tufVersion = take(flags, '--tuf-targets-version');
  const folder = bundle === undefined ? rest.shift() : undefined;
  refuseLeftovers(flags, rest);
  if (releaseKeyFiles.length === 0) throw new UsageError('sign-release needs --release-key FILE');
  if (tufVersion !== undefined && tufTargets === undefined) {
    throw new UsageError('--tuf-targets-version needs --tuf-targets FILE');
  }
  if (bundle === undefined) {
    if (version === undefined)
      throw new UsageError('sign-release needs --version X.Y.Z (or --bundle FILE)');
    if (folder === undefined) throw new UsageError('sign-release needs a FOLDER');
    if (out === undefined) throw new UsageError('sign-release needs --out FILE');
  } else if (version !== undefined || base !== undefined || previous !== undefined) {
    throw new UsageError(
      'sign-release --bundle signs the bundle as it is: no --version, --artifact-base-url ' +
        'or --previous-bundle',
    );
  }
  return {
    kind: 'sign-release',
    releaseKeyFiles,
    version,
    folder,
    bundle: bundle === undefined ? undefined : nonEmpty('--bundle', bundle),
    out: out === undefined ? undefined : nonEmpty('--out', out),
    artifactBaseUrl: base === undefined ? undefined : httpUrl('--artifact-base-url', base),
    previousBundle: previous === undefined ? undefined : nonEmpty('--previous-bundle', previous),
    tufTargets: tufTargets === undefined ? undefined : nonEmpty('--tuf-targets', tufTargets),
    tufTargetsVersion:
      tufVersion === undefined
        ? undefined
        : int('--tuf-targets-version', tufVersion, 1, Number.MAX_SAFE_INTEGER),
  };
}

function parseRotateKeys(argv: readonly string[]): TrustCommand {
  const { flags, lists, rest } = scan(argv, ROTATE_KEYS_OPTIONS);
  const dataDir = take(flags, '--data-dir');
  const rootThreshold = take(flags, '--root-threshold');
  const releaseThreshold = take(flags, '--release-threshold');
  const newReleaseKey = take(flags, '--new-release-key') !== undefined;
  const newFreshnessKey = take(flags, '--new-freshness-key') !== undefined;
  refuseLeftovers(flags, rest);
  if (dataDir === undefined || dataDir === '')
    throw new UsageError('rotate-keys needs --data-dir DIR');
  const releasePubkeys = lists.get('--release-pubkey') ?? [];
  for (const hex of releasePubkeys) {
    if (!HEX64.test(hex))
      throw new UsageError(`--release-pubkey expects 64 lowercase hex, got "${hex}"`);
  }
  if (newReleaseKey && releasePubkeys.length > 0) {
    throw new UsageError('give --new-release-key or --release-pubkey, not both');
  }
  return {
    kind: 'rotate-keys',
    dataDir,
    rootKeyFiles: (lists.get('--root-key') ?? []).map((f) => nonEmpty('--root-key', f)),
    newRootKeyFiles: (lists.get('--new-root-key') ?? []).map((f) => nonEmpty('--new-root-key', f)),
    rootThreshold:
      rootThreshold === undefined ? undefined : int('--root-threshold', rootThreshold, 1, 16),
    releasePubkeys,
    newReleaseKey,
    releaseThreshold:
      releaseThreshold === undefined
        ? undefined
        : int('--release-threshold', releaseThreshold, 1, 16),
    newFreshnessKey,
  };
}
