/**
 * `init DIR`: the QA quick start's one set-up command (docs/SERVER.md §Start a QA project).
 * It writes what a `--config` run needs and nothing else: the config skeleton `qa-server.json`,
 * a node key in `keys/node-key.json` (a new Ed25519 key, mode 0600 in a 0700 directory that
 * carries its own `.gitignore`, so the key is not committed with the QA project) and a sample
 * release folder. It never overwrites: a file that is already there refuses the whole command
 * (code EEXIST) before anything is written, so running it twice cannot replace a key that
 * clients pin.
 */
import { lstat, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pubkeyToHex, publicKeyOf, SECRET_KEY_BYTES } from '#protocol';
import { writeJsonAtomic } from '#shared/atomic-file.js';
import { refuseLeftovers, scan, UsageError } from './cli-flags.js';
import { createRandom } from '../platform/random.js';

export interface InitCommand {
  readonly kind: 'init';
  /** The QA project's directory (created when missing). */
  readonly dir: string;
}

/** The config file `init` writes, relative to DIR. */
export const INIT_CONFIG_FILE = 'qa-server.json';
/** The node key `init` writes, relative to DIR (and to the config, which names it). */
export const INIT_NODE_KEY_FILE = 'keys/node-key.json';
/** The sample release `init` writes, relative to DIR. */
export const INIT_RELEASE_FOLDER = 'fixtures/app-1.0.0';

/**
 * The config skeleton: one fixed machine key, the node key and the sample release, and one
 * subject for the login page. The README's QA quick start shows exactly this object (a test
 * compares them), so what a reader sees is what the command writes.
 */
export const INIT_CONFIG = {
  node_key: { file: INIT_NODE_KEY_FILE },
  machines: [{ machine_key: 'mk_QAQAQAQAQAQAQAQAQAQAQAQAQAQAQAQAQAQAQAQAQAQ' }],
  releases: [{ version: '1.0.0', folder: INIT_RELEASE_FOLDER }],
  oauth: { claims: { subjects: { alice: { email: 'alice@example.test' } } } },
} as const;

const SAMPLE_FILES: Readonly<Record<string, string>> = {
  'hello.txt': 'Hello from release 1.0.0.\n',
  'config/settings.json': '{ "channel": "qa" }\n',
};

/** Parses the words after `init`: exactly one DIR, no options. */
export function parseInitCommand(argv: readonly string[]): InitCommand {
  const { flags, rest } = scan(argv, {});
  const dir = rest.shift();
  refuseLeftovers(flags, rest);
  if (dir === undefined || dir === '') throw new UsageError('init needs a DIR');
  return { kind: 'init', dir };
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** What `init` wrote, printed as its one stdout line. */
export interface InitResult {
  readonly ok: true;
  readonly config: string;
  readonly node_key: string;
  readonly node_pubkey: string;
  readonly release_folder: string;
}

/** Writes the skeleton into `command.dir`; refuses (EEXIST) when any target is there. */
export async function runInit(command: InitCommand): Promise<InitResult> {
  const dir = resolve(command.dir);
  const targets = [INIT_CONFIG_FILE, INIT_NODE_KEY_FILE, INIT_RELEASE_FOLDER].map((p) =>
    join(dir, p),
  );
  for (const target of targets) {
    if (await exists(target)) {
      throw Object.assign(
        new Error(`init: ${target} exists already; init writes only into a fresh directory`),
        { code: 'EEXIST' },
      );
    }
  }
  const keyDir = join(dir, 'keys');
  await mkdir(keyDir, { recursive: true, mode: 0o700 });
  await writeFile(join(keyDir, '.gitignore'), '# Private keys: never commit them.\n*\n');
  const secret = new Uint8Array(createRandom(undefined).bytes(SECRET_KEY_BYTES));
  const publicKeyHex = pubkeyToHex(publicKeyOf(secret));
  const keyFile = join(dir, INIT_NODE_KEY_FILE);
  await writeJsonAtomic(
    keyFile,
    { secret_key_hex: Buffer.from(secret).toString('hex'), public_key_hex: publicKeyHex },
    0o600,
  );
  const release = join(dir, INIT_RELEASE_FOLDER);
  for (const [name, text] of Object.entries(SAMPLE_FILES)) {
    const path = join(release, name);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, text, { flag: 'wx' });
  }
  const config = join(dir, INIT_CONFIG_FILE);
  await writeFile(config, `${JSON.stringify(INIT_CONFIG, null, 2)}\n`, { flag: 'wx' });
  return {
    ok: true,
    config,
    node_key: keyFile,
    node_pubkey: publicKeyHex,
    release_folder: release,
  };
}
