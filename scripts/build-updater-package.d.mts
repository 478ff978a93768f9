// Types of scripts/build-updater-package.mjs for TypeScript callers (tests).
export const UPDATER_PACKAGE_DIR: string;
export const UPDATER_PACKAGE_DOCS: readonly string[];
export function buildUpdaterPackage(options?: {
  types?: boolean;
}): Promise<{ dir: string; dist: string; name: string; version: string }>;
