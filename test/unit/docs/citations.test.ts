/**
 * Documentation that resolves (docs/ARCHITECTURE.md §Layout): every `docs/X.md §section` cited
 * by any source file, test, benchmark or lint rule names a file and a heading that exist. A
 * numbered citation (`§4.3`) needs a heading that starts with that number; a named one
 * (`§Server`) a heading whose title starts with that word. Nothing cites what this repository
 * does not contain (a style guide, a feature table or a checklist kept elsewhere, an issue).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = [
  'src',
  'server/src',
  'packages/server/src',
  'test/unit',
  'test/integration',
  'test/e2e',
  'test/helpers',
  'bench',
  'scripts',
  'eslint.config.mjs',
  'eslint-rules',
];
/** Citations of things kept outside this repository: they cannot be checked, so they go. */
const OUTSIDE = [/STYLE\.md/, /\bfeature table\b/i, /\bissue #?\d+\b/i];
const CITATION = /docs\/([A-Z][A-Z0-9-]*\.md) §([0-9]+(?:\.[0-9]+)*|[A-Za-z][A-Za-z-]*)/g;

function filesUnder(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(path, e.name)) : [join(path, e.name)],
  );
}

/** Heading titles of a Markdown file, without the #s. */
function headings(doc: string): string[] {
  const text = readFileSync(join('docs', doc), 'utf8');
  return text
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, ''));
}

function resolves(section: string, titles: readonly string[]): boolean {
  if (/^[0-9]/.test(section)) {
    return titles.some(
      (t) => t === section || t.startsWith(`${section}. `) || t.startsWith(`${section} `),
    );
  }
  return titles.some((t) => t.replace(/^[0-9.]+ /, '').startsWith(section));
}

describe('doc citations resolve', () => {
  const sources = ROOTS.flatMap(filesUnder).filter(
    (f) => /\.(ts|mts|mjs)$/.test(f) && f !== 'test/unit/docs/citations.test.ts',
  );

  it('finds the citations it checks (the scan is not empty)', () => {
    const count = sources.reduce(
      (n, f) => n + [...readFileSync(f, 'utf8').matchAll(CITATION)].length,
      0,
    );
    expect(count).toBeGreaterThan(300);
  });

  it('names only OAuth rule ids (T-19, R-01, I-08) that docs/OAUTH.md lists', () => {
    const listed = new Set(readFileSync('docs/OAUTH.md', 'utf8').match(/^\| [TIR]-\d\d /gm));
    const unlisted = sources.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b[TIR]-\d\d\b/g)]
        .filter((m) => !listed.has(`| ${m[0]} `))
        .map((m) => `${file}: ${m[0]}`),
    );
    expect(listed.size).toBeGreaterThan(40);
    expect(unlisted).toEqual([]);
  });

  it('cites nothing that this repository does not contain', () => {
    const outside = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          OUTSIDE.some((re) => re.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(outside).toEqual([]);
  });

  it('resolves every docs/X.md §section to a heading that exists', () => {
    const broken: string[] = [];
    const cache = new Map<string, string[]>();
    for (const file of sources) {
      for (const m of readFileSync(file, 'utf8').matchAll(CITATION)) {
        const [cite, doc = '', section = ''] = m;
        let titles = cache.get(doc);
        if (titles === undefined) {
          try {
            titles = headings(doc);
          } catch {
            titles = [];
          }
          cache.set(doc, titles);
        }
        if (!resolves(section, titles)) broken.push(`${file}: ${cite}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('tells a missing section from a present one', () => {
    const titles = ['1. Common: error body', '2.2 Manifest (server side)', 'Server'];
    expect(resolves('1', titles)).toBe(true);
    expect(resolves('2.2', titles)).toBe(true);
    expect(resolves('2.3', titles)).toBe(false);
    expect(resolves('2', titles)).toBe(false);
    expect(resolves('Server', titles)).toBe(true);
    expect(resolves('Manifest', titles)).toBe(true);
    expect(resolves('Names', titles)).toBe(false);
  });
});
