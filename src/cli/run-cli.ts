/**
 * The headless CLI over createNodeUpdater (docs/UPDATER.md §7). With --json exactly one JSON
 * object goes to stdout; everything else (logs, errors, progress) goes to stderr. Exit codes:
 * 0 success or up-to-date, 1 refused or failed (and verify drift), 2 usage or configuration;
 * a run a signal stopped exits 128 + its number (interrupt-signals.ts), and main.ts turns a 0
 * into 74 when stdout could not be written (broken-pipe.ts).
 */
import {
  errnoDetails,
  isUpdateError,
  toUpdateError,
  UpdateError,
  type UpdateErrorDetails,
} from '#core/errors.js';
import { readFile } from 'node:fs/promises';
import type { Logger } from '#core/ports.js';
import type { UpdaterApi } from '#core/updater-api.js';
import { createNodeUpdater } from '#node/create-updater.js';
import type { ProxyFetch } from '#node/proxy/index.js';
import type { CliEnv, CliIo } from './cli-io.js';
import { parseCli, USAGE, type CliOptions } from './args.js';
import { openCliProxy } from './cli-proxy.js';
import { Drift, execute } from './command-results.js';
import { detailLines, type Json } from './output-format.js';
import { interruptExitCode } from './interrupt-signals.js';
import { progressBar } from './progress-bar.js';
import type { runServe as RunServe } from './serve.js';

export type { CliEnv, CliIo } from './cli-io.js';
export { EXIT_INTERRUPTED } from './interrupt-signals.js';

/** The one line printed on Ctrl-C: how to go on. */
export const RESUME_HINT =
  'interrupted: run the same command again to resume; partial downloads are kept';

export { detailLines } from './output-format.js';

function logger(io: CliIo): Logger {
  const line = (level: string, message: string, fields?: Record<string, unknown>): void =>
    io.stderr(`${level} ${message}${fields === undefined ? '' : ` ${JSON.stringify(fields)}`}\n`);
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (m, f) => line('warn', m, f),
    error: (m, f) => line('error', m, f),
  };
}

/**
 * The new version is installed but a write after the swap failed (a full disk): not 1, which
 * says nothing was installed. 75 is EX_TEMPFAIL of sysexits.h: the next run finishes it
 * (docs/UPDATER.md §7).
 */
export const EXIT_CLEANUP_PENDING = 75;

/** How a failed run is told: the error line, its details, and with --json one object. */
function failer(io: CliIo, json: boolean, command: () => string) {
  return (code: string, message: string, extra: Json = {}): number => {
    io.stderr(`error ${code}: ${message}\n`);
    const details = extra['details'];
    if (details !== undefined) io.stderr(detailLines(details as UpdateErrorDetails));
    if (json) {
      io.stdout(`${JSON.stringify({ ok: false, command: command(), code, message, ...extra })}\n`);
    }
    if (code === 'CLEANUP_PENDING') return EXIT_CLEANUP_PENDING;
    return code === 'CONFIG_INVALID' || code === 'TRUSTED_ROOT_INVALID' ? 2 : 1;
  };
}

type Fail = ReturnType<typeof failer>;

/** The progress bar, on a terminal and without --json only. */
function progressFor(io: CliIo, options: CliOptions): ReturnType<typeof progressBar> | undefined {
  if (!io.stderrIsTty || options.json) return undefined;
  return progressBar({
    write: io.stderr,
    // Read per frame: a resized terminal gets a bar of its new width.
    get columns() {
      return io.columns;
    },
    nowMs: io.nowMs,
  });
}

/** The environment's proxy for the commands that reach the registry, or a failure's exit code. */
async function proxyFor(
  options: CliOptions,
  env: CliEnv,
  io: CliIo,
  fail: Fail,
): Promise<ProxyFetch | undefined | number> {
  // Only the commands that reach the registry read the proxy variables (a malformed one
  // cannot block `status` or `rollback`).
  if ((options.command !== 'check' && options.command !== 'update') || options.noProxy) {
    return undefined;
  }
  try {
    return await openCliProxy(env.environment ?? {}, options.baseUrl, (m) =>
      io.stderr(`warn ${m}\n`),
    );
  } catch (error) {
    const e = toUpdateError(error);
    return fail(e.code, e.message);
  }
}

/** The bytes of `--trusted-root FILE` (at most 1 MB), or CONFIG_INVALID naming the file. */
async function readTrustedRoot(path: string | undefined): Promise<Uint8Array | undefined> {
  if (path === undefined) return undefined;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_TRUSTED_ROOT_BYTES)
      throw new Error(`over ${MAX_TRUSTED_ROOT_BYTES} bytes`);
    return new Uint8Array(bytes);
  } catch (cause) {
    throw new UpdateError('CONFIG_INVALID', `--trusted-root ${path} cannot be read`, {
      cause,
      details: errnoDetails(cause) ?? { path },
    });
  }
}

/** A root is a few kilobytes; the TUF client's own cap for a root (src/core/tuf/config.ts). */
const MAX_TRUSTED_ROOT_BYTES = 512_000;

/** The updater of one CLI run, over the entry point's clock, hooks and proxy. */
async function openUpdater(
  options: CliOptions,
  env: CliEnv,
  io: CliIo,
  proxy: ProxyFetch | undefined,
): Promise<UpdaterApi> {
  const trustedRoot = await readTrustedRoot(options.trustedRoot);
  return createNodeUpdater({
    baseUrl: options.baseUrl,
    machineKey: options.machineKey,
    pubkeys: options.pubkeys,
    dir: options.dir,
    ...(trustedRoot === undefined ? {} : { trustedRoot }),
    ...(options.maxTimestampLifetimeS === undefined
      ? {}
      : { maxTimestampLifetimeS: options.maxTimestampLifetimeS }),
    limits: options.limits,
    requireNonce: options.requireNonce,
    logger: logger(io),
    // The entry point's clock drives expiry too, so a test can run the CLI at a frozen time.
    clock: { nowMs: io.nowMs },
    ...(env.onStep === undefined ? {} : { onStep: env.onStep }),
    ...(env.collectGarbage === undefined ? {} : { collectGarbage: env.collectGarbage }),
    ...(env.writebackEveryBytes === undefined
      ? {}
      : { writebackEveryBytes: env.writebackEveryBytes }),
    ...(options.swap === undefined ? {} : { swap: options.swap }),
    ...(options.health === undefined ? {} : { health: options.health }),
    // status and verify answer on a full disk too, without the lock (create-updater.ts).
    readOnly: options.command === 'status' || options.command === 'verify',
    // Both reach the registry first thing: the handshake overlaps the lock (docs/UPDATER.md
    // §11.2).
    preconnect: options.command === 'update' || options.command === 'check',
    ...(env.earlySocket === undefined ? {} : { earlySocket: env.earlySocket }),
    // Through the environment's proxy (cli-proxy.ts); none set: the pipelined fetcher.
    ...(proxy === undefined ? {} : { fetch: proxy.fetch }),
  });
}

/** The exit code of a run that threw: drift, or the refusal's code. */
function failure(error: unknown, options: CliOptions, io: CliIo, fail: Fail): number {
  if (error instanceof Drift) {
    for (const d of error.report['drift'] as { name: string; problem: string }[]) {
      if (!options.json) io.stderr(`drift ${d.problem}: ${d.name}\n`);
    }
    return fail('DRIFT', error.message, error.report);
  }
  const e = toUpdateError(error);
  const extra: Json = e.details === undefined ? {} : { details: e.details };
  if (e.code === 'CLEANUP_PENDING') {
    // What is live, said as the outcome a script tests for (docs/UPDATER.md §7, --json).
    const version = e.details?.['installed_version'] ?? null;
    return fail(e.code, e.message, {
      outcome: 'installed',
      version,
      cleanup_pending: true,
      ...extra,
    });
  }
  return fail(e.code, e.message, extra);
}

/** Runs one command to its exit code: open, run, print; Ctrl-C closes and says how to resume. */
async function runCommand(
  options: CliOptions,
  env: CliEnv,
  io: CliIo,
  fail: Fail,
): Promise<number> {
  const proxy = await proxyFor(options, env, io, fail);
  if (typeof proxy === 'number') return proxy;
  let updater: UpdaterApi | undefined;
  let closing: Promise<void> | undefined;
  // One close for Ctrl-C and the end of the run alike: both wait for the lock's release.
  const close = (): Promise<void> =>
    (closing ??= (updater?.close() ?? Promise.resolve()).then(() => proxy?.close()));
  const onInterrupt = (): void => void close();
  const interrupted = (): number => {
    const message = options.command === 'update' ? RESUME_HINT : 'interrupted';
    io.stderr(`${message}\n`);
    if (options.json) {
      const body = { ok: false, command: options.command, code: 'ABORTED', message };
      io.stdout(`${JSON.stringify(body)}\n`);
    }
    return interruptExitCode(env.interrupt?.reason);
  };
  const bar = progressFor(io, options);
  try {
    updater = await openUpdater(options, env, io, proxy);
    if (bar !== undefined) updater.on(bar.listener);
    if (env.interrupt?.aborted === true) return interrupted();
    env.interrupt?.addEventListener('abort', onInterrupt, { once: true });
    const { json: body, text } = await execute(options.command, updater, options.dir);
    bar?.end();
    if (options.json)
      io.stdout(`${JSON.stringify({ ok: true, command: options.command, ...body })}\n`);
    else io.stdout(`${text}\n`);
    return 0;
  } catch (error) {
    bar?.end();
    if (env.interrupt?.aborted !== true) return failure(error, options, io, fail);
    await close();
    return interrupted();
  } finally {
    env.interrupt?.removeEventListener('abort', onInterrupt);
    await close();
  }
}

/** Runs one CLI invocation and resolves to its exit code. */
export async function runCli(argv: readonly string[], env: CliEnv, io: CliIo): Promise<number> {
  // `serve` is a long-lived command with its own flags (src/cli/serve.ts), in its own bundle
  // (serve.mjs beside updater.mjs, scripts/build-cli.mjs), loaded only when asked for.
  if (argv[0] === 'serve') {
    const module = import.meta.url.endsWith('.mjs') ? './serve.mjs' : './serve.js';
    const { runServe } = (await import(module)) as { runServe: typeof RunServe };
    return runServe(argv.slice(1), env, io);
  }
  // `--help` / `-h` / `help` anywhere: usage on stdout, exit 0 (what users expect of a CLI).
  if (argv.some((a) => a === '--help' || a === '-h') || argv[0] === 'help') {
    io.stdout(`${USAGE}\n       npm run updater -- serve --help   (the window in a browser)\n`);
    return 0;
  }
  let command = argv.find((a) => !a.startsWith('-')) ?? 'unknown';
  const json = argv.includes('--json');
  const fail = failer(io, json, () => command);
  let options: CliOptions;
  try {
    options = parseCli(argv, env.machineKey);
  } catch (error) {
    // An error with details is about a value (an unreadable key file), not the flags' shape.
    const details = isUpdateError(error) ? error.details : undefined;
    if (!json && details === undefined) io.stderr(`${USAGE}\n`);
    const message = error instanceof Error ? error.message : 'bad arguments';
    return fail('CONFIG_INVALID', message, details === undefined ? {} : { details });
  }
  command = options.command;
  return runCommand(options, env, io, fail);
}
