// Types of scripts/build-app.mjs for TypeScript callers (e2e global setup, layout check).
export interface BuiltApp {
  readonly outDir: string;
  readonly main: string;
  readonly preload: string;
  readonly renderer: string;
  /** The web window's bridge bundle (web/web.js). */
  readonly web: string;
}

export function buildApp(options?: {
  outDir?: string;
  only?: readonly ('main' | 'preload' | 'renderer' | 'web')[];
}): Promise<BuiltApp>;

/** Which installers electron-builder will sign with `env`; values are never read out. */
export function signingReport(
  env: Record<string, string | undefined>,
  platforms?: readonly ('linux' | 'mac' | 'win')[],
): { lines: string[]; unsigned: boolean };
