// Types of scripts/test-setup.mjs for its unit test.
import type { FoundTool, Probe } from './test-tools.mjs';

export type Tool = 'chromium' | 'nginx';

export interface SetupFacts {
  readonly platform: string;
  readonly isRoot: boolean;
  readonly os: {
    readonly id: string;
    readonly like: readonly string[];
    readonly versionMajor: number | undefined;
  };
  /** Package managers (and sudo) found on PATH. */
  readonly managers: readonly string[];
  readonly chromium: FoundTool | undefined;
  readonly nginx: FoundTool | undefined;
}

export type SetupPlan =
  | { readonly kind: 'ready'; readonly chromium: string; readonly nginx: string }
  | { readonly kind: 'install'; readonly packages: string[]; readonly commands: string[][] }
  | { readonly kind: 'stop'; readonly message: string };

export interface RunResult {
  readonly status: number | null;
  readonly error?: Error;
}

export function gatherFacts(probe?: Probe): SetupFacts;
export function planSetup(facts: SetupFacts): SetupPlan;
export function stopMessage(
  missing: readonly Tool[],
  commands: readonly string[],
  unroutable?: readonly Tool[],
): string;
export function runSetup(options?: {
  probe?: Probe;
  run?: (command: string, args: readonly string[], options: object) => RunResult;
  log?: { error(message: string): void };
}): number;
