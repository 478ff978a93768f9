// Types of scripts/start.mjs for TypeScript callers (its unit test).
export function electronBinary(): string | null;

export function launchArgs(appDir: string, userArgs: readonly string[]): string[];
