// Types of scripts/run-tests.mjs for its unit test.
export interface Phase {
  readonly name: string;
  readonly argv: readonly string[];
  readonly required?: boolean;
}
export const PHASES: readonly Phase[];
export function runTests(options?: {
  run?: (command: string, args: readonly string[], options: object) => { status: number | null };
  log?: (line: string) => void;
  phases?: readonly Phase[];
  /** Where test-results/ is (default: the repository). */
  dir?: string;
}): number;
