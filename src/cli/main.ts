/**
 * Entry point of `npm run updater`. The only place that reads process.env and argv: the
 * machine key may come from UPDATER_MACHINE_KEY (so it need not appear in `ps`), and the crash
 * tests set UPDATER_TEST_CRASH_AT=<step> to SIGKILL this process right after it (an install or
 * health step; `<step>@<n>`: its n-th time, e.g. current-swapped@2 is the revert's switch), and
 * UPDATER_TEST_WRITEBACK_BYTES=<n> to sync a large partial's data every n bytes, so that the
 * kill -9 suite's artifacts have early syncs in flight (src/node/fs/early-writeback.ts).
 */
import { isStep, type StepHook } from '#core/install/index.js';
import { exposeMinorGc } from '#node/http/index.js';
import { outliveReader, watchOutput } from './broken-pipe.js';
import { tuneHeap } from './heap-flags.js';
import { takeEarlyConnection } from './early-connect.js';
import { INTERRUPT_SIGNALS, interruptExitCode } from './interrupt-signals.js';
import { runCli } from './run-cli.js';

// Before anything sizable is allocated: V8 sizes its spaces as they grow (heap-flags.ts).
tuneHeap(process.argv[2]);
// A reader that leaves (`| head`) drops our output, never the run; a full disk (`> /dev/full`)
// is said and changes exit 0 to 74 (broken-pipe.ts).
const output = watchOutput(process.stdout, 'stdout', (line) => process.stderr.write(line));
outliveReader(process.stderr);

function crashHook(spec: string | undefined): StepHook | undefined | 'invalid' {
  if (spec === undefined || spec === '') return undefined;
  const match = /^([a-z-]+)(?:@([1-9]\d{0,2}))?$/.exec(spec);
  const step = match?.[1];
  if (step === undefined || !isStep(step)) return 'invalid';
  let left = Number(match?.[2] ?? '1');
  return (reached) => {
    if (reached === step && --left === 0) process.kill(process.pid, 'SIGKILL');
  };
}

/**
 * Ctrl-C (docs/UPDATER.md §7): the first SIGINT aborts the run, which closes the core and
 * releases the lock before the CLI exits 130 with how to resume; a second one exits at once
 * (a lock left behind is taken over by the next run, §8). SIGTERM (`kill`, `timeout`, a service
 * manager's stop) and SIGHUP (the terminal or ssh session closed) do the same, with 143 and
 * 129 (interrupt-signals.ts). The signal is the abort's reason. `serve` handles its own.
 */
function interruptSignal(argv: readonly string[]): AbortSignal | undefined {
  if (argv[0] === 'serve') return undefined;
  const controller = new AbortController();
  for (const signal of INTERRUPT_SIGNALS) {
    process.on(signal, () => {
      if (!controller.signal.aborted) {
        controller.abort(signal);
        return;
      }
      process.stderr.write('interrupted again: exiting without waiting\n');
      process.exit(interruptExitCode(controller.signal.reason));
    });
  }
  return controller.signal;
}

/**
 * The young-generation GC of read-buffer-gc.ts, set up at its first call: exposing it creates a
 * V8 context (docs/UPDATER.md §10.6), which a run that writes no partial file (a no-op) never
 * needs (docs/UPDATER.md §3, No-op runs).
 */
function lazyMinorGc(): () => void {
  let collect: (() => void) | undefined | null = null;
  return () => {
    if (collect === null) collect = exposeMinorGc();
    collect?.();
  };
}

/** Resolves once everything written to `stream` so far was handed to the OS (or dropped). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0 || stream.destroyed) resolve();
    else stream.write('', () => resolve());
  });
}

/**
 * Ends the process with `code` once stdout and stderr are flushed, without the heap teardown
 * a natural exit does after the event loop drains (docs/UPDATER.md §7, Exit). Called only
 * after runCli returned: the run closed the core (lock released, every state, journal and blob
 * write awaited), so nothing the result depends on is left in flight.
 */
async function exitWith(code: number): Promise<never> {
  await flushed(process.stdout);
  const final = await output.exitCode(code);
  await flushed(process.stderr);
  process.exit(final);
}

/** A positive whole number of bytes, undefined when unset, NaN when malformed. */
function byteCount(spec: string | undefined): number | undefined {
  if (spec === undefined || spec === '') return undefined;
  return /^[1-9]\d{0,12}$/.test(spec) ? Number(spec) : Number.NaN;
}

const hook = crashHook(process.env['UPDATER_TEST_CRASH_AT']);
const writebackEveryBytes = byteCount(process.env['UPDATER_TEST_WRITEBACK_BYTES']);
if (hook === 'invalid') {
  process.stderr.write('error CONFIG_INVALID: UPDATER_TEST_CRASH_AT names no install step\n');
  process.exitCode = 2;
} else if (Number.isNaN(writebackEveryBytes)) {
  process.stderr.write('error CONFIG_INVALID: UPDATER_TEST_WRITEBACK_BYTES is no byte count\n');
  process.exitCode = 2;
} else {
  const code = await runCli(
    process.argv.slice(2),
    {
      machineKey: process.env['UPDATER_MACHINE_KEY'],
      // https_proxy, http_proxy, ALL_PROXY, NO_PROXY (src/cli/cli-proxy.ts). A copy: on Windows
      // process.env's lookups ignore case, so `http_proxy` would read a CGI-set HTTP_PROXY
      // (httpoxy, env-proxy.ts); a plain object keeps each name as stored, case and all.
      environment: { ...process.env },
      onStep: hook,
      interrupt: interruptSignal(process.argv.slice(2)),
      // Keeps the peak RSS of a large pull under 100 MB (read-buffer-gc.ts).
      collectGarbage: lazyMinorGc(),
      writebackEveryBytes,
      // The registry's connection, opened by the launcher before this bundle loaded.
      earlySocket: takeEarlyConnection(),
    },
    {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      stderrIsTty: process.stderr.isTTY,
      // A getter: the progress bar follows a resized terminal (progress-bar.ts).
      get columns() {
        return process.stderr.columns ?? 80;
      },
      nowMs: () => Date.now(),
    },
  );
  await exitWith(code);
}
