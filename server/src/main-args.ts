/**
 * Command-line parsing for main.ts: flags -> ServerOptions, or the `publish` subcommand.
 * Pure (argv in, a value or a UsageError out) so every refusal is unit-tested. The words are
 * split by node:util parseArgs (as src/cli/args.ts does); the checks on its tokens keep this
 * CLI's refusals (docs/SERVER.md §Run it).
 */
import { parseArgs as parseArgv } from 'node:util';
import { DEFAULT_OPTIONS, type ServerOptions } from './options.js';
import { errorClass } from './server-error.js';

/** A command line that cannot be run: main.ts prints it with the usage and exits 2. */
export const UsageError = errorClass('UsageError', 'USAGE');
export type UsageError = InstanceType<typeof UsageError>;

export const USAGE = `Usage:
  npm run server -- [options]
  npm run server -- publish --data-dir DIR --version X.Y.Z [--node-key FILE]
                    [--artifact-base-url URL] [--expires-in-s N] FOLDER

Server options:
  --port N                 TCP port, 0 = any free port (default 0)
  --host ADDR              listen address (default 127.0.0.1)
  --dev                    enable the test-control API under /api/dev/*
  --data-dir DIR           data directory (default: a temporary one, removed on exit)
  --seed N                 deterministic ids, secrets and simulation (tests only)
  --node-key FILE          Ed25519 node key file (default: DIR/node-key.json, generated)
  --simulate on|off        chain simulator (default on)
  --simulate-machines N    simulated machines (default 1000)
  --qa-client-secret S     secret of the OAuth client qa-web (default random)
  --clients-file FILE      JSON file with more OAuth clients
  --issuer URL             OAuth/OIDC issuer (default: the server URL)
  --log-level L            fatal|error|warn|info|debug|trace|silent (default info)
  --max-body-bytes N       request body limit (default 16384)
  --help                   print this help
`;

export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'serve'; readonly options: ServerOptions }
  | {
      readonly kind: 'publish';
      readonly dataDir: string;
      readonly version: string;
      readonly folder: string;
      readonly nodeKeyFile: string | undefined;
      readonly artifactBaseUrl: string | undefined;
      readonly expiresInS: number | undefined;
    };

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
type OptionSpec = Readonly<Record<string, { readonly type: 'string' | 'boolean' }>>;

const SERVER_OPTIONS: OptionSpec = {
  port: { type: 'string' },
  host: { type: 'string' },
  dev: { type: 'boolean' },
  'data-dir': { type: 'string' },
  seed: { type: 'string' },
  'node-key': { type: 'string' },
  simulate: { type: 'string' },
  'simulate-machines': { type: 'string' },
  'qa-client-secret': { type: 'string' },
  'clients-file': { type: 'string' },
  issuer: { type: 'string' },
  'log-level': { type: 'string' },
  'max-body-bytes': { type: 'string' },
};
const PUBLISH_OPTIONS: OptionSpec = {
  'data-dir': { type: 'string' },
  version: { type: 'string' },
  'node-key': { type: 'string' },
  'artifact-base-url': { type: 'string' },
  'expires-in-s': { type: 'string' },
};

function int(flag: string, text: string, min: number, max: number): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag} expects an integer from ${min} to ${max}, got "${text}"`);
  }
  return Number(text);
}

function httpUrl(flag: string, text: string): string {
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return text;
  } catch {
    // fall through to the usage error
  }
  throw new UsageError(`${flag} expects an http(s) URL, got "${text}"`);
}

/**
 * Splits argv into flag values (`--x v` or `--x=v`) and positionals with node:util parseArgs.
 * Its lenient mode with tokens is used because strict mode lets a repeated flag win silently
 * and refuses a value that starts with a dash (`--port -1`, which must reach the range check);
 * the walk over the tokens refuses, in argv order: an unknown flag, a value given to a boolean
 * flag, a missing value and a repeated flag. Short options are not flags here: `-x` stays a word.
 */
function scan(
  argv: readonly string[],
  options: OptionSpec,
): { flags: Map<string, string>; rest: string[] } {
  const { tokens } = parseArgv({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags = new Map<string, string>();
  const rest: string[] = [];
  let lastWord = -1;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      rest.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') throw new UsageError('unknown option --');
    if (!token.rawName.startsWith('--')) {
      // `-abc` yields one token per letter, all with the index of the one word.
      if (token.index !== lastWord) rest.push(argv[token.index] ?? token.rawName);
      lastWord = token.index;
      continue;
    }
    const name = `--${token.name}`;
    const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (spec === undefined) throw new UsageError(`unknown option ${name}`);
    let value: string;
    if (spec.type === 'boolean') {
      if (token.inlineValue === true) throw new UsageError(`${name} takes no value`);
      value = 'true';
    } else {
      if (token.value === undefined) throw new UsageError(`${name} needs a value`);
      value = token.value;
    }
    if (flags.has(name)) throw new UsageError(`${name} is given twice`);
    flags.set(name, value);
  }
  return { flags, rest };
}

function take(flags: Map<string, string>, name: string): string | undefined {
  const v = flags.get(name);
  flags.delete(name);
  return v;
}

function refuseLeftovers(flags: Map<string, string>, rest: readonly string[]): void {
  const unknown = [...flags.keys()][0];
  if (unknown !== undefined) throw new UsageError(`unknown option ${unknown}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0] ?? ''}"`);
}

/** Parses the command line (without node and script). Throws UsageError on bad input. */
export function parseArgs(argv: readonly string[]): Command {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  if (argv[0] === 'publish') return parsePublish(argv.slice(1));
  const { flags, rest } = scan(argv, SERVER_OPTIONS);
  const o: { -readonly [K in keyof ServerOptions]: ServerOptions[K] } = { ...DEFAULT_OPTIONS };
  const v = (name: string): string | undefined => take(flags, name);
  let s: string | undefined;
  if ((s = v('--port')) !== undefined) o.port = int('--port', s, 0, 65535);
  if ((s = v('--host')) !== undefined) {
    if (s.length === 0) throw new UsageError('--host needs an address');
    o.host = s;
  }
  if (v('--dev') !== undefined) o.dev = true;
  if ((s = v('--data-dir')) !== undefined) o.dataDir = nonEmpty('--data-dir', s);
  if ((s = v('--seed')) !== undefined) o.seed = int('--seed', s, 0, Number.MAX_SAFE_INTEGER);
  if ((s = v('--node-key')) !== undefined) o.nodeKeyFile = nonEmpty('--node-key', s);
  if ((s = v('--simulate')) !== undefined) {
    if (s !== 'on' && s !== 'off') throw new UsageError(`--simulate expects on or off, got "${s}"`);
    o.simulate = s === 'on';
  }
  if ((s = v('--simulate-machines')) !== undefined) {
    o.simulateMachines = int('--simulate-machines', s, 0, 1_000_000);
  }
  if ((s = v('--qa-client-secret')) !== undefined) {
    o.qaClientSecret = nonEmpty('--qa-client-secret', s);
  }
  if ((s = v('--clients-file')) !== undefined) o.clientsFile = nonEmpty('--clients-file', s);
  if ((s = v('--issuer')) !== undefined) o.issuer = httpUrl('--issuer', s);
  if ((s = v('--log-level')) !== undefined) {
    if (!LOG_LEVELS.has(s)) throw new UsageError(`--log-level: unknown level "${s}"`);
    o.logLevel = s;
  }
  if ((s = v('--max-body-bytes')) !== undefined) {
    o.maxBodyBytes = int('--max-body-bytes', s, 1024, 64 * 1024 * 1024);
  }
  refuseLeftovers(flags, rest);
  return { kind: 'serve', options: o };
}

function nonEmpty(flag: string, value: string): string {
  if (value.length === 0) throw new UsageError(`${flag} needs a non-empty value`);
  return value;
}

function parsePublish(argv: readonly string[]): Command {
  const { flags, rest } = scan(argv, PUBLISH_OPTIONS);
  const dataDir = take(flags, '--data-dir');
  const version = take(flags, '--version');
  const nodeKeyFile = take(flags, '--node-key');
  const base = take(flags, '--artifact-base-url');
  const expires = take(flags, '--expires-in-s');
  const folder = rest.shift();
  refuseLeftovers(flags, rest);
  if (dataDir === undefined || dataDir === '') throw new UsageError('publish needs --data-dir DIR');
  if (version === undefined || version === '')
    throw new UsageError('publish needs --version X.Y.Z');
  if (folder === undefined) throw new UsageError('publish needs a FOLDER');
  return {
    kind: 'publish',
    dataDir,
    version,
    folder,
    nodeKeyFile,
    artifactBaseUrl: base === undefined ? undefined : httpUrl('--artifact-base-url', base),
    expiresInS: expires === undefined ? undefined : int('--expires-in-s', expires, 1, 366 * 86400),
  };
}
