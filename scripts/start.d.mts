// Types of scripts/start.mjs for TypeScript callers (its unit test).
export function electronBinary(
  env?: Readonly<Record<string, string | undefined>>,
  dir?: string,
): string | null;

export function launchArgs(appDir: string, userArgs: readonly string[]): string[];

/** npm start's own options, and those it hands to `updater serve`. */
export const START_OPTIONS: readonly string[];
export const SERVE_OPTIONS: readonly string[];

export function startOptions(argv: readonly string[]): {
  /** The refusal of the first unknown option (with the nearest known one), if any. */
  error: string | undefined;
  web: boolean;
  open: boolean;
  appArgs: string[];
};

export function browserOpener(
  platform?: string,
  env?: Readonly<Record<string, string | undefined>>,
): { command: string; args: string[] } | null;
