/**
 * An unknown option is named, with the nearest known one when it looks like a typo
 * (docs/UPDATER.md §7), in the CLI (src/cli/closest-option.ts) and in `npm start`
 * (scripts/closest-option.mjs), which must agree.
 */
import { describe, expect, it } from 'vitest';
import { parseCli } from '#cli/args.js';
import { closestOption, editDistance } from '#shared/closest-option.js';
import * as script from '#scripts/closest-option.mjs';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['--bse-url', '--base-url', 1],
    ['--prot', '--port', 2],
    ['kitten', 'sitting', 3],
  ])('%s -> %s: %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(script.editDistance(a, b)).toBe(d);
  });
});

describe('closestOption', () => {
  const known = ['--base-url', '--dir', '--pubkey', '--json'];
  it('finds a typo', () => {
    expect(closestOption('--bse-url', known)).toBe('--base-url');
    expect(script.closestOption('--bse-url', known)).toBe('--base-url');
  });
  it('suggests nothing for a word far from every option', () => {
    expect(closestOption('--bogus-everything', known)).toBeUndefined();
    expect(script.closestOption('--bogus-everything', known)).toBeUndefined();
  });
});

describe('the CLI', () => {
  it('names the unknown option and the nearest known one, in one sentence with its quotes', () => {
    expect(() => parseCli(['update', '--bse-url', 'http://x'], undefined)).toThrow(
      "unknown option '--bse-url' (did you mean '--base-url'?)",
    );
  });
  it('names an unknown option with no near one alone', () => {
    expect(() => parseCli(['update', '--zzzzzzzzzzzz'], undefined)).toThrow(
      /^unknown option '--zzzzzzzzzzzz'$/,
    );
  });
});
