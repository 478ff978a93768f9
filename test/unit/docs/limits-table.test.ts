/**
 * docs/UPDATER.md §4 tells every limit of src/core/limits.ts with its default and CLI flag. The
 * table is prose for people, so this test keeps it true: every limit has a row, every row names
 * a limit, a plain numeric default equals the code's, and the flag column matches the CLI's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIMIT_FLAGS } from '#cli/args.js';
import { DEFAULT_LIMITS, type Limits } from '#core/limits.js';

interface Row {
  readonly names: string[];
  readonly defaults: string;
  readonly flag: string;
}

function limitRows(): Row[] {
  const doc = readFileSync('docs/UPDATER.md', 'utf8');
  const section = doc.slice(doc.indexOf('## 4. Limits'), doc.indexOf('## 5.'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name = '', defaults = '', flag = ''] = line.split('|').slice(1, 4);
      return {
        names: [...name.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1] ?? ''),
        defaults: defaults.trim(),
        flag: flag.trim().replace(/`/g, ''),
      };
    });
}

describe('docs/UPDATER.md §4, the limits table', () => {
  const rows = limitRows();
  const keys = Object.keys(DEFAULT_LIMITS) as (keyof Limits)[];

  it('has a row for every limit and names no limit the code lacks', () => {
    const named = rows.flatMap((r) => r.names);
    expect([...named].sort()).toEqual([...keys].sort());
  });

  it('gives each plain numeric default as the code does', () => {
    const numeric = rows.filter((r) => r.names.length === 1 && /^[0-9]+$/.test(r.defaults));
    expect(numeric.length).toBeGreaterThan(5);
    for (const row of numeric) {
      const key = row.names[0] as keyof Limits;
      expect(`${key} = ${row.defaults}`).toBe(`${key} = ${DEFAULT_LIMITS[key]}`);
    }
  });

  it("names each limit's CLI flag, and only flags the CLI has", () => {
    const flagOf = new Map<string, string>(
      Object.entries(LIMIT_FLAGS).map(([flag, key]) => [key, `--${flag}`]),
    );
    for (const row of rows) {
      const expected = row.names.map((n) => flagOf.get(n)).find((f) => f !== undefined) ?? '–';
      expect(`${row.names.join('/')}: ${row.flag}`).toBe(`${row.names.join('/')}: ${expected}`);
    }
  });
});
