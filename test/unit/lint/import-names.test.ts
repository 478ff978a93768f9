/**
 * Playwright's loader resolves the package.json "imports" names through the tsconfig "paths" of
 * test/e2e/tsconfig.playwright.json (docs/ARCHITECTURE.md §Layout). The two lists must name the
 * same targets, or an e2e spec fails to load after the next name is added.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** JSON with // comments, as tsconfig files are written. */
function readJsonc(path: string): unknown {
  const text = readFileSync(path, 'utf8').replace(/^\s*\/\/.*$/gm, '');
  return JSON.parse(text);
}

describe('import names', () => {
  it('the e2e tsconfig paths mirror package.json "imports"', () => {
    const pkg = readJsonc('package.json') as { imports: Record<string, string> };
    const tsconfig = readJsonc('test/e2e/tsconfig.playwright.json') as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    const paths = Object.fromEntries(
      Object.entries(tsconfig.compilerOptions.paths).map(([name, [target]]) => [name, target]),
    );
    expect(paths).toEqual(pkg.imports);
  });
});
