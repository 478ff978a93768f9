/**
 * Command-line parsing for main.ts: flags -> the ServerOptions they give (only those, so that
 * a flag can win over the same setting in a --config file), or the `publish` subcommand.
 * Pure (argv in, a value or a UsageError out) so every refusal is unit-tested. The words are
 * split by node:util parseArgs (as src/cli/args.ts does); the checks on its tokens keep this
 * CLI's refusals (docs/SERVER.md §Run it).
 */
import { MAX_FRESHNESS_LIFETIME_S, type ServerOptions } from '../compose/options.js';
import { parseTrustCommand, type TrustCommand } from './trust-args.js';
import { parseInitCommand, type InitCommand } from './init-command.js';
import {
  httpUrl,
  int,
  nonEmpty,
  refuseLeftovers,
  scan,
  take,
  UsageError,
  type OptionSpec,
} from './cli-flags.js';

export { UsageError } from './cli-flags.js';

export const USAGE = `Usage:
  npm run server -- [options]
  npm run server -- init DIR
  npm run server -- publish --data-dir DIR --version X.Y.Z [--node-key FILE] [--init]
                    [--artifact-base-url URL] [--expires-in-s N] [--static-out OUT]
                    [--notes FILE] FOLDER
  npm run server -- publish --data-dir DIR --bundle FILE [--expires-in-s N]
                    [--tuf-targets FILE] [--static-out OUT] FOLDER
  npm run server -- sign-release --release-key FILE... --version X.Y.Z
                    [--artifact-base-url URL] [--previous-bundle FILE] --out FILE
                    [--tuf-targets FILE --tuf-targets-version N] FOLDER
  npm run server -- sign-release --release-key FILE... --bundle FILE [--out FILE]
                    [--tuf-targets FILE]
  npm run server -- rotate-keys --data-dir DIR [--root-key FILE...] [--new-root-key FILE...]
                    [--root-threshold K] [--release-pubkey HEX...] [--new-release-key]
                    [--release-threshold K] [--new-freshness-key]

Server options:
  --port N                 TCP port, 0 = any free port (default 0)
  --host ADDR              listen address (default 127.0.0.1)
  --dev                    enable the test-control API under /api/dev/*
  --config FILE            set-up from a JSON file: clients, claims, machine keys, releases,
                           chain machines, node key, lifetimes (docs/SERVER.md §Config file);
                           a flag given as well wins over the file
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
  --freshness-lifetime-s N freshness statement lifetime, re-signed at half (60 to 604800; default 86400)
  --headers-timeout-ms N   a request head must arrive within N ms (default 10000)
  --request-timeout-ms N   the whole request, body included, within N ms (default 30000)
  --keep-alive-timeout-ms N  an idle kept-alive connection is closed after N ms (default 5000)
  --idle-timeout-ms N      a socket silent both ways is closed after N ms (default 60000)
  --max-connections N      open connections at most (default 1000; fewer if the open-files
                           limit minus --fd-reserve is lower)
  --fd-reserve N           file descriptors kept for the server's own files (default 128)
  --max-connections-per-address N  one address's share of the cap: at the cap, room is
                           taken from an address over it first (default 500, lowered in
                           proportion with the cap)
  --rate-limit N|off       limited requests per minute and client address (default 600)
  --help                   print this help

Keys (docs/PROTOCOL.md §2.7.8): publish signs with DIR/release-key.json when it is there, else
takes a --bundle signed offline by sign-release; rotate-keys writes the next key set.
sign-release signs the table of packs the server would (§2.8): give --previous-bundle FILE,
the bundle of the release the fleet holds, to keep its packs (else packed afresh).
publish refuses a DIR without keys (no key chain, no node key) unless --init is given: a new
node key is not the one clients pin. init DIR writes a QA project's qa-server.json, a node key
(keys/node-key.json, 0600) and a sample release, and never overwrites (docs/SERVER.md §Start a
QA project).
`;

/** The usage under the name the command runs by (the package's bin has its own). */
export function usageFor(program: string): string {
  const indent = ' '.repeat(program.length + 3);
  return USAGE.replaceAll('npm run server --', program).replaceAll(/^ {20}\[/gm, `${indent}[`);
}

export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'serve'; readonly options: Partial<ServerOptions> }
  | {
      readonly kind: 'publish';
      readonly dataDir: string;
      /** Absent with --bundle: the bundle names its version. */
      readonly version: string | undefined;
      readonly bundle: string | undefined;
      readonly folder: string;
      readonly nodeKeyFile: string | undefined;
      readonly artifactBaseUrl: string | undefined;
      readonly expiresInS: number | undefined;
      /** --init: a DIR without keys may be given a new node key. */
      readonly init: boolean;
      /** --static-out DIR: also write the TUF repository as a plain tree there. */
      readonly staticOut: string | undefined;
      /** --tuf-targets FILE: install TUF targets signed offline for this release. */
      readonly tufTargets: string | undefined;
      /** --notes FILE: release notes (Markdown) signed with the release. */
      readonly notesFile: string | undefined;
    }
  | TrustCommand
  | InitCommand;

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
const SERVER_OPTIONS: OptionSpec = {
  port: { type: 'string' },
  host: { type: 'string' },
  dev: { type: 'boolean' },
  config: { type: 'string' },
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
  'freshness-lifetime-s': { type: 'string' },
  'headers-timeout-ms': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
  'keep-alive-timeout-ms': { type: 'string' },
  'idle-timeout-ms': { type: 'string' },
  'max-connections': { type: 'string' },
  'fd-reserve': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'rate-limit': { type: 'string' },
};
const PUBLISH_OPTIONS: OptionSpec = {
  'data-dir': { type: 'string' },
  version: { type: 'string' },
  'node-key': { type: 'string' },
  'artifact-base-url': { type: 'string' },
  'expires-in-s': { type: 'string' },
  bundle: { type: 'string' },
  init: { type: 'boolean' },
  'static-out': { type: 'string' },
  'tuf-targets': { type: 'string' },
  notes: { type: 'string' },
};

/** Parses the command line (without node and script). Throws UsageError on bad input. */
export function parseArgs(argv: readonly string[]): Command {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  if (argv[0] === 'publish') return parsePublish(argv.slice(1));
  if (argv[0] === 'init') return parseInitCommand(argv.slice(1));
  if (argv[0] === 'sign-release' || argv[0] === 'rotate-keys') {
    return parseTrustCommand(argv[0], argv.slice(1));
  }
  const { flags, rest } = scan(argv, SERVER_OPTIONS);
  const o: { -readonly [K in keyof ServerOptions]?: ServerOptions[K] } = {};
  const v = (name: string): string | undefined => take(flags, name);
  let s: string | undefined;
  if ((s = v('--port')) !== undefined) o.port = int('--port', s, 0, 65535);
  if ((s = v('--host')) !== undefined) {
    if (s.length === 0) throw new UsageError('--host needs an address');
    o.host = s;
  }
  if (v('--dev') !== undefined) o.dev = true;
  if ((s = v('--config')) !== undefined) o.config = nonEmpty('--config', s);
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
  if ((s = v('--freshness-lifetime-s')) !== undefined) {
    o.freshnessLifetimeS = int(
      '--freshness-lifetime-s',
      s,
      60,
      MAX_FRESHNESS_LIFETIME_S,
      ' (7 days: TUF clients of this server refuse a longer-lived timestamp)',
    );
  }
  Object.assign(o, parseLimitFlags(v));
  refuseLeftovers(flags, rest);
  return { kind: 'serve', options: o };
}

function parsePublish(argv: readonly string[]): Command {
  const { flags, rest } = scan(argv, PUBLISH_OPTIONS);
  const dataDir = take(flags, '--data-dir');
  const version = take(flags, '--version');
  const bundle = take(flags, '--bundle');
  const nodeKeyFile = take(flags, '--node-key');
  const base = take(flags, '--artifact-base-url');
  const expires = take(flags, '--expires-in-s');
  const init = take(flags, '--init') !== undefined;
  const staticOut = take(flags, '--static-out');
  const tufTargets = take(flags, '--tuf-targets');
  const notesFile = take(flags, '--notes');
  const folder = rest.shift();
  refuseLeftovers(flags, rest);
  if (dataDir === undefined || dataDir === '') throw new UsageError('publish needs --data-dir DIR');
  if (bundle !== undefined) {
    // A bundle's version and URLs are signed (docs/PROTOCOL.md §2.7.8): they cannot change here.
    if (version !== undefined || base !== undefined || notesFile !== undefined) {
      throw new UsageError(
        'publish --bundle takes neither --version, --artifact-base-url nor --notes',
      );
    }
    nonEmpty('--bundle', bundle);
  } else if (version === undefined || version === '') {
    throw new UsageError('publish needs --version X.Y.Z (or --bundle FILE)');
  }
  if (folder === undefined) throw new UsageError('publish needs a FOLDER');
  return {
    kind: 'publish',
    dataDir,
    version,
    bundle,
    folder,
    nodeKeyFile,
    artifactBaseUrl: base === undefined ? undefined : httpUrl('--artifact-base-url', base),
    expiresInS: expires === undefined ? undefined : int('--expires-in-s', expires, 1, 366 * 86400),
    init,
    staticOut: staticOut === undefined ? undefined : nonEmpty('--static-out', staticOut),
    tufTargets: tufTargets === undefined ? undefined : nonEmpty('--tuf-targets', tufTargets),
    notesFile: notesFile === undefined ? undefined : nonEmpty('--notes', notesFile),
  };
}

/** The socket limits and the rate limit (docs/SERVER.md §Limits). */
function parseLimitFlags(v: (name: string) => string | undefined): Partial<ServerOptions> {
  const o: { -readonly [K in keyof ServerOptions]?: ServerOptions[K] } = {};
  const DAY_MS = 86_400_000;
  let s: string | undefined;
  if ((s = v('--headers-timeout-ms')) !== undefined) {
    o.headersTimeoutMs = int('--headers-timeout-ms', s, 100, DAY_MS);
  }
  if ((s = v('--request-timeout-ms')) !== undefined) {
    o.requestTimeoutMs = int('--request-timeout-ms', s, 100, DAY_MS);
  }
  if ((s = v('--keep-alive-timeout-ms')) !== undefined) {
    o.keepAliveTimeoutMs = int('--keep-alive-timeout-ms', s, 100, DAY_MS);
  }
  if ((s = v('--idle-timeout-ms')) !== undefined) {
    o.idleTimeoutMs = int('--idle-timeout-ms', s, 100, DAY_MS);
  }
  if ((s = v('--max-connections')) !== undefined) {
    o.maxConnections = int('--max-connections', s, 1, 1_000_000);
  }
  if ((s = v('--fd-reserve')) !== undefined) o.fdReserve = int('--fd-reserve', s, 0, 1_000_000);
  if ((s = v('--max-connections-per-address')) !== undefined) {
    o.maxConnectionsPerAddress = int('--max-connections-per-address', s, 1, 1_000_000);
  }
  if ((s = v('--rate-limit')) !== undefined) {
    o.rateLimitPerMinute = s === 'off' ? 0 : int('--rate-limit', s, 1, 1_000_000_000);
  }
  return o;
}
