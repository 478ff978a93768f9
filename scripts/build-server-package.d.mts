// Types of scripts/build-server-package.mjs for TypeScript callers (the packed-tarball test).
export const PACKAGE_DIR: string;

export interface BuiltServerPackage {
  readonly dir: string;
  readonly dist: string;
  readonly name: string;
  readonly version: string;
}

export function buildServerPackage(options?: { types?: boolean }): Promise<BuiltServerPackage>;
/** The guides copied into the package's docs/ (names under docs/). */
export const PACKAGE_DOCS: readonly string[];
