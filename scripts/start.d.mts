// Types of scripts/start.mjs for TypeScript callers (its unit test).
export function electronBinary(
  env?: Readonly<Record<string, string | undefined>>,
  dir?: string,
): string | null;

export function launchArgs(appDir: string, userArgs: readonly string[]): string[];

export function startOptions(argv: readonly string[]): {
  web: boolean;
  open: boolean;
  appArgs: string[];
};

export function browserOpener(
  platform?: string,
  env?: Readonly<Record<string, string | undefined>>,
): { command: string; args: string[] } | null;
