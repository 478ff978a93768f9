/**
 * The headless CLI over createNodeUpdater (docs/UPDATER.md §7). With --json exactly one JSON
 * object goes to stdout; everything else (logs, errors, progress) goes to stderr. Exit codes:
 * 0 success or up-to-date, 1 refused or failed (and verify drift), 2 usage or configuration;
 * a run a signal stopped exits 128 + its number (interrupt-signals.ts), and main.ts turns a 0
 * into 74 when stdout could not be written (broken-pipe.ts).
 */
import { isUpdateError, toUpdateError, type UpdateErrorDetails } from '#core/errors.js';
import type { Logger } from '#core/ports.js';
import type { UpdaterApi } from '#core/updater-api.js';
import { createNodeUpdater } from '#node/create-updater.js';
import { resolveCurrentSet } from '#node/store/index.js';
import type { ProxyFetch } from '#node/proxy/index.js';
import type { CliEnv, CliIo } from './cli-io.js';
import { parseCli, USAGE, type CliOptions, type Command } from './args.js';
import { openCliProxy } from './cli-proxy.js';
import {
  detailLines,
  planJson,
  planLine,
  probationJson,
  updateLine,
  type Json,
} from './output-format.js';
import { interruptExitCode } from './interrupt-signals.js';
import { progressBar } from './progress-bar.js';
import type { runServe as RunServe } from './serve.js';

export type { CliEnv, CliIo } from './cli-io.js';
export { EXIT_INTERRUPTED } from './interrupt-signals.js';

/** The one line printed on Ctrl-C: how to go on. */
export const RESUME_HINT =
  'interrupted: run the same command again to resume; partial downloads are kept';

export { detailLines } from './output-format.js';

class Drift extends Error {
  constructor(readonly report: Json) {
    super('the installed set differs from the signed manifest');
  }
}

async function execute(
  command: Command,
  updater: UpdaterApi,
  dir: string,
): Promise<{ json: Json; text: string }> {
  switch (command) {
    case 'check': {
      const plan = await updater.check();
      // The plan's from-version is the installed one: no second read of the state file.
      const installedVersion = plan.fromVersion;
      const skipped = plan.skipped;
      const available =
        skipped === undefined &&
        (installedVersion !== plan.toVersion || plan.fetch.length > 0 || plan.remove.length > 0);
      return {
        json: {
          version: plan.toVersion,
          installed_version: installedVersion,
          update_available: available,
          plan: planJson(plan),
          ...(skipped === undefined
            ? {}
            : { skipped: { version: plan.toVersion, reason: skipped.reason } }),
        },
        text:
          skipped !== undefined
            ? `skipped ${plan.toVersion}: ${skipped.reason}`
            : available
              ? `update available: ${installedVersion ?? 'nothing'} -> ${plan.toVersion}; ${planLine(plan)}`
              : `up to date at ${plan.toVersion}`,
      };
    }
    case 'update': {
      const result = await updater.update();
      return {
        json: {
          outcome: result.outcome,
          version: result.version,
          bytes_downloaded: result.bytesDownloaded,
          plan: result.plan === null ? null : planJson(result.plan),
          ...(result.repaired === undefined ? {} : { repaired: result.repaired }),
          ...(result.skipped === undefined ? {} : { skipped: result.skipped }),
          ...(result.probation === undefined
            ? {}
            : { awaiting_confirmation: { deadline_at_ms: result.probation.deadlineAtMs } }),
        },
        text: updateLine(result),
      };
    }
    case 'confirm': {
      const r = await updater.confirm();
      return {
        json: { version: r.version, confirmed: r.confirmed },
        text: r.confirmed
          ? `confirmed ${r.version ?? ''}: no longer on probation`
          : `nothing on probation (installed ${r.version ?? 'nothing'})`,
      };
    }
    case 'status': {
      const s = await updater.status();
      return {
        json: {
          installed_version: s.installedVersion,
          highest_accepted_version: s.highestAcceptedVersion,
          can_roll_back: s.canRollBack,
          last_error: s.lastError,
          // The one documented way to find the live set, whatever the swap strategy.
          current_path: await resolveCurrentSet(dir),
          probation: probationJson(s.probation),
          bad_versions: s.badVersions.map((b) => ({
            version: b.version,
            reason: b.reason,
            at_ms: b.atMs,
          })),
        },
        text:
          `installed ${s.installedVersion ?? 'nothing'}, highest accepted ` +
          `${s.highestAcceptedVersion ?? 'none'}, can roll back: ${s.canRollBack ? 'yes' : 'no'}` +
          (s.probation === null ? '' : `, on probation (${s.probation.mode})`) +
          (s.lastError === null ? '' : `, last error ${s.lastError.code}`),
      };
    }
    case 'rollback': {
      const r = await updater.rollback();
      return { json: { version: r.version }, text: `rolled back to ${r.version ?? 'nothing'}` };
    }
    case 'verify': {
      const report = await updater.verify();
      const json = { version: report.version, drift: report.drift };
      if (!report.ok) throw new Drift(json);
      return { json, text: `verified ${report.version ?? ''}: no drift` };
    }
  }
}

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

/** Runs one CLI invocation and resolves to its exit code. */
export async function runCli(argv: readonly string[], env: CliEnv, io: CliIo): Promise<number> {
  // `serve` is a long-lived command with its own flags (src/cli/serve.ts), in its own bundle
  // (serve.mjs beside updater.mjs, scripts/build-cli.mjs), loaded only when asked for.
  if (argv[0] === 'serve') {
    const module = import.meta.url.endsWith('.mjs') ? './serve.mjs' : './serve.js';
    const { runServe } = (await import(module)) as { runServe: typeof RunServe };
    return runServe(argv.slice(1), env, io);
  }
  let options: CliOptions | undefined;
  // `--help` / `-h` / `help` anywhere: usage on stdout, exit 0 (what users expect of a CLI).
  if (argv.some((a) => a === '--help' || a === '-h') || argv[0] === 'help') {
    io.stdout(`${USAGE}\n       npm run updater -- serve --help   (the window in a browser)\n`);
    return 0;
  }
  let command = argv.find((a) => !a.startsWith('-')) ?? 'unknown';
  const json = argv.includes('--json');
  const fail = (code: string, message: string, extra: Json = {}): number => {
    io.stderr(`error ${code}: ${message}\n`);
    const details = extra['details'];
    if (details !== undefined) io.stderr(detailLines(details as UpdateErrorDetails));
    if (json) io.stdout(`${JSON.stringify({ ok: false, command, code, message, ...extra })}\n`);
    return code === 'CONFIG_INVALID' ? 2 : 1;
  };
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
  let proxy: ProxyFetch | undefined;
  // Only the commands that reach the registry read the proxy variables (a malformed one
  // cannot block `status` or `rollback`).
  if ((command === 'check' || command === 'update') && !options.noProxy) {
    try {
      proxy = await openCliProxy(env.environment ?? {}, options.baseUrl, (m) =>
        io.stderr(`warn ${m}\n`),
      );
    } catch (error) {
      const e = toUpdateError(error);
      return fail(e.code, e.message);
    }
  }
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
      io.stdout(`${JSON.stringify({ ok: false, command, code: 'ABORTED', message })}\n`);
    }
    return interruptExitCode(env.interrupt?.reason);
  };
  const bar =
    io.stderrIsTty && !options.json
      ? progressBar({
          write: io.stderr,
          // Read per frame: a resized terminal gets a bar of its new width.
          get columns() {
            return io.columns;
          },
          nowMs: io.nowMs,
        })
      : undefined;
  try {
    updater = await createNodeUpdater({
      baseUrl: options.baseUrl,
      machineKey: options.machineKey,
      pubkeys: options.pubkeys,
      dir: options.dir,
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
      // Through the environment's proxy (cli-proxy.ts); none set: the node:http fetcher.
      ...(proxy === undefined ? {} : { fetch: proxy.fetch }),
    });
    if (bar !== undefined) updater.on(bar.listener);
    if (env.interrupt?.aborted === true) return interrupted();
    env.interrupt?.addEventListener('abort', onInterrupt, { once: true });
    const { json: body, text } = await execute(options.command, updater, options.dir);
    bar?.end();
    if (options.json) io.stdout(`${JSON.stringify({ ok: true, command, ...body })}\n`);
    else io.stdout(`${text}\n`);
    return 0;
  } catch (error) {
    bar?.end();
    if (env.interrupt?.aborted === true) {
      await close();
      return interrupted();
    }
    if (error instanceof Drift) {
      for (const d of error.report['drift'] as { name: string; problem: string }[]) {
        if (!options.json) io.stderr(`drift ${d.problem}: ${d.name}\n`);
      }
      return fail('DRIFT', error.message, error.report);
    }
    const e = toUpdateError(error);
    return fail(e.code, e.message, e.details === undefined ? {} : { details: e.details });
  } finally {
    env.interrupt?.removeEventListener('abort', onInterrupt);
    await close();
  }
}
