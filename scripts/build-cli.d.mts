// Types of scripts/build-cli.mjs for TypeScript callers (benchmarks).
export function buildCli(options?: { outfile?: string }): Promise<string>;
/** Threads of libuv's pool the launcher asks for (unless UV_THREADPOOL_SIZE is set). */
export const CLI_THREADPOOL_SIZE: number;
/** The launcher beside a bundle: updater.mjs -> updater.cjs. */
export function launcherOf(outfile: string): string;
/** inputs.json beside a bundle: the inputs and outputs of its last build. */
export function inputsFileOf(outfile: string): string;
/** True when the bundles beside `outfile` are missing or older than an input of theirs. */
export function isStale(outfile: string): Promise<boolean>;
