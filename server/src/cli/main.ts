/**
 * The companion server's command line (`npm run server -- ...`). Prints one JSON line
 * {"url", "node_pubkey", ...} first, then pino JSON logs; SIGINT/SIGTERM/SIGHUP close it gracefully
 * (a temporary data directory is removed), and so does the exit of npm when npm started it.
 * `publish` signs a folder into a data directory (or uploads a bundle signed offline);
 * `sign-release` and `rotate-keys` are the key commands.
 * Exit codes: 0 ok, 1 failure, 2 usage error.
 */
import type { DestinationStream } from 'pino';
import { ServerClock } from '../platform/clock.js';
import { readFile } from 'node:fs/promises';
import { parseArgs, usageFor, UsageError, type Command } from './main-args.js';
import { runInit } from './init-command.js';
import { listFolder } from '../updates/publish/publish-folder.js';
import { writeStaticTree } from '../updates/tuf/static-tree.js';
import { installTargets } from '../updates/tuf/offline-targets.js';
import { readBundleFile } from '../updates/publish/release-bundle.js';
import { NodeKeyMissingError } from '../updates/keys/trust-keys.js';
import { openUpdateState } from '../updates/update-state.js';
import { DEFAULT_OPTIONS } from '../compose/options.js';
import { startedByNpm, watchParent } from './parent-watch.js';
import { createRandom } from '../platform/random.js';
import { isServerError } from '../server-error.js';
import { startServer, type RunningServer } from '../compose/start-server.js';
import { runTrustCommand } from './trust-commands.js';

/** Holds log lines until the first stdout line is out, so it is always line one. */
class GatedStdout implements DestinationStream {
  #held: string[] | undefined = [];
  write(line: string): void {
    if (this.#held === undefined) process.stdout.write(line);
    else if (this.#held.length < 10_000) this.#held.push(line);
  }
  open(first: string): void {
    process.stdout.write(first);
    for (const line of this.#held ?? []) process.stdout.write(line);
    this.#held = undefined;
  }
}

async function serve(command: Extract<Command, { kind: 'serve' }>): Promise<void> {
  const out = new GatedStdout();
  const started: { server?: RunningServer } = {};
  let requested: string | undefined;
  let stopping = false;
  const stop = (why: string): void => {
    const { server } = started;
    if (server === undefined) {
      if (requested !== undefined) process.exit(1); // a second signal while starting
      requested = why; // acted on once it has started
      return;
    }
    if (stopping) process.exit(1); // a second signal: stop now
    stopping = true;
    // Graceful, but bounded: a stuck connection must not keep the process alive forever.
    setTimeout(() => process.exit(1), 10_000).unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown after ${why} failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  // Listen before starting: a harness may kill us while we start, and the temporary data
  // directory must still be removed.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // The terminal it runs in was closed (or the ssh session dropped): by default SIGHUP killed
  // it on the spot, its temporary data directory left behind (docs/SERVER.md, Run it).
  process.on('SIGHUP', () => stop('SIGHUP'));
  if (startedByNpm(process.env)) watchParent(() => stop('the parent process exited'));
  // The command line logs at info unless told otherwise (in-process servers are silent).
  const server = await startServer(
    { logLevel: DEFAULT_OPTIONS.logLevel, ...command.options },
    { logStream: out },
  );
  started.server = server;
  out.open(
    `${JSON.stringify({ url: server.url, node_pubkey: server.nodePubkey, ...server.describe() })}\n`,
  );
  if (requested !== undefined) stop(requested);
}

async function publish(command: Extract<Command, { kind: 'publish' }>): Promise<void> {
  const clock = new ServerClock();
  const state = await openUpdateState(
    {
      dataDir: command.dataDir,
      options: { ...DEFAULT_OPTIONS, dataDir: command.dataDir, nodeKeyFile: command.nodeKeyFile },
      clock,
      random: createRandom(undefined),
    },
    { newRoot: command.init },
  ).catch((error: unknown) => {
    if (!(error instanceof NodeKeyMissingError)) throw error;
    throw new NodeKeyMissingError(
      `${error.message}, and clients that pin the real node key would refuse its releases ` +
        '(UNKNOWN_KEY). Give --node-key FILE with the real key, or --init to start this data ' +
        'directory with a new key on purpose.',
    );
  });
  const artifacts = await listFolder(command.folder);
  const expiry = command.expiresInS === undefined ? {} : { expires_in_s: command.expiresInS };
  const result = await state.publisher.publish(
    command.bundle !== undefined
      ? {
          bundle: await readBundleFile(command.bundle),
          artifacts,
          ...expiry,
        }
      : {
          registry_version: command.version ?? '',
          artifacts,
          ...expiry,
          ...(command.artifactBaseUrl === undefined
            ? {}
            : { artifact_base_url: command.artifactBaseUrl }),
          ...(command.notesFile === undefined ? {} : { notes: await readNotes(command.notesFile) }),
        },
  );
  // Targets signed offline for this release (docs/PROTOCOL.md §TUF repository).
  if (command.tufTargets !== undefined) {
    const bytes = await readFile(command.tufTargets);
    await installTargets(command.dataDir, bytes, state.releases.current?.manifest);
  }
  // The TUF repository as a plain tree (docs/PROTOCOL.md §TUF repository, Static tree).
  const tree =
    command.staticOut === undefined
      ? undefined
      : await writeStaticTree(state.tuf, state.blobs, command.staticOut);
  process.stdout.write(
    `${JSON.stringify({
      ok: true,
      registry_version: result.registry_version,
      node_pubkey: state.trust().nodePubkeyHex,
      artifacts: result.artifacts.length,
      release_sha256: result.release_sha256,
      sequence: result.sequence,
      expires_at: result.expires_at,
      ...(tree === undefined ? {} : { static_out: tree }),
    })}\n`,
  );
}

// The package's build names its bin here (scripts/build-server-package.mjs `define`).
const USAGE = usageFor(process.env.VERIFIED_UPDATER_SERVER_PROGRAM ?? 'npm run server --');

async function main(argv: readonly string[]): Promise<void> {
  let command: Command;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (command.kind === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (command.kind === 'publish') {
    await publish(command);
    return;
  }
  if (command.kind === 'init') {
    process.stdout.write(`${JSON.stringify(await runInit(command))}\n`);
    return;
  }
  if (command.kind === 'sign-release' || command.kind === 'rotate-keys') {
    await runTrustCommand(command);
    return;
  }
  await serve(command);
}

/** The `code` of the failure line: the refusal's own, else Node's for a system error. */
function failureCode(error: unknown): string {
  if (isServerError(error)) return error.code;
  // listen() fails with a system error (EADDRINUSE, EACCES): its code says what to fix.
  if (error instanceof Error && 'code' in error && typeof error.code === 'string')
    return error.code;
  return 'FAILED';
}

// A reader that leaves (`npm run -s server | head -1` to take the URL, a harness that stops
// reading) must not stop the server: Node reports the failed write as an error event on the
// stream, which with no listener ended the process, port and temporary data directory left as
// they were. Its logs are dropped from then on; it serves until it is signalled
// (docs/SERVER.md, Run it).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', () => {
    // Nothing to do: Node destroyed the stream, so later writes go nowhere, silently.
  });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const code = failureCode(error);
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${JSON.stringify({ ok: false, error: message, code })}\n`);
  process.exit(1);
});

/**
 * The notes file as signed text: UTF-8 (refused otherwise), line ends made LF so a file saved
 * on Windows is not refused for its carriage returns; the publisher judges the rest.
 */
async function readNotes(file: string): Promise<string> {
  const bytes = await readFile(file);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/\r\n/g, '\n');
}
