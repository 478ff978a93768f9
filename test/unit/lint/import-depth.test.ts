/**
 * Shared code is imported by name (docs/ARCHITECTURE.md §Layout): no source file climbs more
 * than two folders, and tests reach the code under test through the package.json "imports"
 * names (#core/…, #server/…), not through ../../../src. The packages' own sources are the one
 * exception: their type declarations are published, and a published .d.ts cannot resolve our
 * import names, so they keep relative paths.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? filesUnder(join(dir, e.name))
      : /\.(ts|mts)$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** Every `from '…'` and `import('…')` specifier of a file, with its line. */
function specifiers(file: string): { line: number; spec: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, i) =>
      [...text.matchAll(/(?:from |import\()'([^']+)'/g)].map((m) => ({
        line: i + 1,
        spec: m[1] ?? '',
      })),
    );
}

describe('import depth', () => {
  it('no file of src/ or server/src/ climbs more than two folders', () => {
    const deep = [...filesUnder('src'), ...filesUnder('server/src')].flatMap((file) =>
      specifiers(file)
        .filter((s) => /^(\.\.\/){3,}/.test(s.spec))
        .map((s) => `${file}:${s.line}: ${s.spec}`),
    );
    expect(deep).toEqual([]);
  });

  it('tests import the sources by name, not by a path into src/ or server/src/', () => {
    const byPath = filesUnder('test').flatMap((file) =>
      specifiers(file)
        .filter((s) => /^(\.\.\/)+(src|server\/src)\//.test(s.spec))
        .map((s) => `${file}:${s.line}: ${s.spec}`),
    );
    expect(byPath).toEqual([]);
  });
});
