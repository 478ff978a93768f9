// Types of scripts/run-tests.mjs for its unit test.
export interface Phase {
  readonly name: string;
  readonly argv: readonly string[];
  readonly required?: boolean;
  /** The suite whose report counts this phase's failed tests. */
  readonly report?: 'vitest' | 'playwright';
}
export const PHASES: readonly Phase[];
export type RunPhase = (
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    onLine: (line: string) => void;
    stdout?: { write(chunk: never): unknown; isTTY?: boolean };
    stderr?: { write(chunk: never): unknown };
  },
) => Promise<{ status: number }>;
export const runPhase: RunPhase;
export function isNodeWarning(line: string): boolean;
export function runTests(options?: {
  run?: RunPhase;
  log?: (line: string) => void;
  phases?: readonly Phase[];
  /** Where test-results/ is (default: the repository). */
  dir?: string;
}): Promise<number>;
