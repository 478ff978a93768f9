// Types of scripts/test-tools.mjs for TypeScript callers (playwright.config.ts, test helpers).
export const DEBIAN_CHROMIUM: string;
export const DEBIAN_NGINX: string;

/** The machine as the lookups see it; tests inject their own. */
export interface Probe {
  readonly platform: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly isRoot: boolean;
  isExecutable(path: string): boolean;
  playwrightChromium(): string | undefined;
  readText(path: string): string | undefined;
}

/** A found binary; `broken` when an explicit override names something not executable. */
export interface FoundTool {
  readonly path: string;
  readonly source: 'env' | 'debian' | 'playwright' | 'path';
  readonly broken?: true;
}

export function realProbe(): Probe;
export function which(name: string, probe: Probe): string | undefined;
export function findChromium(probe?: Probe): FoundTool | undefined;
export function findNginx(probe?: Probe): FoundTool | undefined;
export function missingToolMessage(tool: 'chromium' | 'nginx'): string;
