/**
 * What one CLI command runs with: its environment and its output streams, injected so tests drive
 * it. Shared by run-cli.ts and serve.ts.
 */
import type { StepHook } from '#core/install/index.js';
import type { EarlySocket } from '#node/http/index.js';
import type { ProxyEnvironment } from '#node/proxy/index.js';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stderrIsTty: boolean;
  readonly columns: number;
  readonly nowMs: () => number;
}

export interface CliEnv {
  readonly machineKey?: string | undefined;
  readonly onStep?: StepHook | undefined;
  /** A cheap GC for large pulls (read-buffer-gc.ts), set up by the entry point. */
  readonly collectGarbage?: (() => void) | undefined;
  /** Early data syncs every this many bytes (main.ts UPDATER_TEST_WRITEBACK_BYTES: kill -9). */
  readonly writebackEveryBytes?: number | undefined;
  /**
   * Aborted on Ctrl-C (SIGINT, main.ts), SIGTERM or SIGHUP, with the signal as its reason: the
   * run stops, the lock is released, exit 130 (143, 129).
   */
  readonly interrupt?: AbortSignal | undefined;
  /** The proxy variables (main.ts passes process.env; docs/UPDATER.md §7, Proxy). */
  readonly environment?: ProxyEnvironment;
  /** The registry connection the launcher opened (early-connect.ts), for check and update. */
  readonly earlySocket?: EarlySocket | undefined;
}
