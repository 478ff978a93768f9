// Types of scripts/build-cli.mjs for TypeScript callers (benchmarks).
export function buildCli(options?: { outfile?: string }): Promise<string>;
