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
  readonly stdout?: string;
  readonly stderr?: string;
}

/** Where Debian's invoke-rc.d reads its policy, and the policy written there while installing. */
export const POLICY_RC_D: string;
export const DENY_SERVICES: string;

/** The one file the set-up writes (and removes), injectable for tests. */
export interface SetupFiles {
  exists(path: string): boolean;
  write(path: string, text: string): void;
  remove(path: string): void;
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
  run?: (command: string, args: readonly string[], options: { stdio: unknown }) => RunResult;
  log?: { error(message: string): void };
  files?: SetupFiles;
}): number;
