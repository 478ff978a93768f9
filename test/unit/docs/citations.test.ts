/**
 * Documentation that resolves (docs/ARCHITECTURE.md §Server): every `docs/X.md §section` cited
 * by the server, src/protocol, src/shared, their tests and the ESLint config names a file and a
 * heading that exist. A numbered citation (`§4.3`) needs a heading that starts with that number;
 * a named one (`§Server`) a heading whose title starts with that word.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = [
  'server/src',
  'src/protocol',
  'src/shared',
  'test/unit/server',
  'test/integration',
  'eslint.config.mjs',
];
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
    (f) =>
      /\.(ts|mjs)$/.test(f) &&
      (!f.startsWith('test/integration') || /server-|chain-|oauth-/.test(f)),
  );

  it('finds the citations it checks (the scan is not empty)', () => {
    const count = sources.reduce(
      (n, f) => n + [...readFileSync(f, 'utf8').matchAll(CITATION)].length,
      0,
    );
    expect(count).toBeGreaterThan(50);
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
