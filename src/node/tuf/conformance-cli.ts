/**
 * The client-under-test CLI of the tuf-conformance suite (its CLIENT-CLI.md), over our own
 * TUF client (src/core/tuf), for scripts/tuf-conformance-client:
 *
 *   --metadata-dir DIR init TRUSTED_ROOT
 *   --metadata-dir DIR --metadata-url URL refresh
 *   --metadata-dir DIR --metadata-url URL --target-name PATH [--target-name PATH...]
 *       --target-base-url URL --target-dir DIR download
 *
 * Exit 0 when the command succeeded fully, 1 otherwise (the refusal's code and message go to
 * stderr). The client-side timestamp lifetime bound (not a TUF rule) is off by default here:
 * the suite's simulated repositories sign timestamps for 30 days and its tuf-on-ci static
 * repository for 20 years. `--max-timestamp-lifetime-days N` turns it on.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  TufUpdater,
  isTufError,
  quoteSegment,
  verifyTarget,
  type TufClock,
} from '#core/tuf/index.js';
import { writeFileAtomic } from '#shared/atomic-file.js';
import { FileMetadataStore } from './file-metadata-store.js';
import { HttpBytesFetcher } from './http-bytes-fetcher.js';

export interface ConformanceArgs {
  readonly command: 'init' | 'refresh' | 'download';
  readonly metadataDir: string;
  readonly metadataUrl: string | undefined;
  readonly trustedRoot: string | undefined;
  readonly targetNames: readonly string[];
  readonly targetBaseUrl: string | undefined;
  readonly targetDir: string | undefined;
  readonly maxTimestampLifetimeS: number;
}

const DAY_S = 24 * 3600;

export function parseConformanceArgs(argv: readonly string[]): ConformanceArgs {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      'metadata-dir': { type: 'string' },
      'metadata-url': { type: 'string' },
      'target-name': { type: 'string', multiple: true },
      'target-base-url': { type: 'string' },
      'target-dir': { type: 'string' },
      'max-timestamp-lifetime-days': { type: 'string' },
      verbose: { type: 'boolean', short: 'v', multiple: true },
    },
  });
  const [command, trustedRoot] = positionals;
  if (command !== 'init' && command !== 'refresh' && command !== 'download') {
    throw new Error(`unknown command ${String(command)}`);
  }
  const metadataDir = values['metadata-dir'];
  if (metadataDir === undefined) throw new Error('--metadata-dir is required');
  const lifetime = values['max-timestamp-lifetime-days'];
  const days = lifetime === undefined ? Number.POSITIVE_INFINITY : Number(lifetime);
  if (!(days > 0)) throw new Error('--max-timestamp-lifetime-days must be positive');
  return {
    command,
    metadataDir,
    metadataUrl: values['metadata-url'],
    trustedRoot,
    targetNames: values['target-name'] ?? [],
    targetBaseUrl: values['target-base-url'],
    targetDir: values['target-dir'],
    maxTimestampLifetimeS: days * DAY_S,
  };
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
}

async function openUpdater(
  args: ConformanceArgs,
  store: FileMetadataStore,
  clock: TufClock,
): Promise<TufUpdater> {
  return TufUpdater.open({
    metadataBaseUrl: required(args.metadataUrl, '--metadata-url'),
    fetcher: new HttpBytesFetcher(),
    store,
    clock,
    config: { maxTimestampLifetimeS: args.maxTimestampLifetimeS },
  });
}

/** CLIENT-CLI.md "download": each target in argument order, one updater, stop at a failure. */
async function download(args: ConformanceArgs, updater: TufUpdater): Promise<void> {
  const targetDir = required(args.targetDir, '--target-dir');
  const baseUrl = required(args.targetBaseUrl, '--target-base-url');
  if (args.targetNames.length === 0) throw new Error('--target-name is required');
  for (const name of args.targetNames) {
    const target = await updater.requireTargetInfo(name);
    // The whole path in one encoded file name: no directory of the target dir is escaped.
    const file = join(targetDir, quoteSegment(name));
    if (await isCached(file, target)) continue;
    await writeFileAtomic(file, await updater.downloadTarget(target, baseUrl));
  }
}

async function isCached(
  file: string,
  target: Parameters<typeof verifyTarget>[0],
): Promise<boolean> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch {
    return false;
  }
  try {
    verifyTarget(target, bytes);
    return true;
  } catch {
    return false;
  }
}

/** Runs one command; `clock` is the wall clock (faketime moves it in the suite). */
export async function runConformanceCli(
  argv: readonly string[],
  clock: TufClock = { nowMs: () => Date.now() },
): Promise<number> {
  try {
    const args = parseConformanceArgs(argv);
    const store = new FileMetadataStore(args.metadataDir);
    if (args.command === 'init') {
      // CLIENT-CLI.md: init stores the given root; "no checks are expected".
      await store.write('root', await readFile(required(args.trustedRoot, 'TRUSTED_ROOT')));
      return 0;
    }
    const updater = await openUpdater(args, store, clock);
    if (args.command === 'refresh') await updater.refresh();
    else await download(args, updater);
    return 0;
  } catch (error) {
    const code = isTufError(error) ? error.code : 'ERROR';
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`tuf-conformance-client: ${code}: ${message}\n`);
    return 1;
  }
}
