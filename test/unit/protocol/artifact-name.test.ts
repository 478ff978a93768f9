import { describe, expect, it } from 'vitest';
import { compareNames, isSafeArtifactName, unsafeNameReason } from '#protocol/artifact-name.js';

const safe = ['a', 'app.asar', 'resources/app/main.js', 'é.txt', 'a b/c-d_e.f', 'x'.repeat(255)];
const unsafe: [string, string][] = [
  ['', 'is empty'],
  ['/etc/passwd', 'is absolute'],
  ['C:/Windows', 'starts with a drive letter'],
  ['c:x', 'starts with a drive letter'],
  ['a\\b', 'contains a backslash'],
  ['ab:c', 'contains a backslash, colon'],
  ['a\u0000b', 'control character'],
  ['a\nb', 'control character'],
  ['../x', '".." segment'],
  ['a/../b', '".." segment'],
  ['./a', '"." or ".." segment'],
  ['a//b', 'empty segment'],
  ['a/', 'empty segment'],
  ['a.', 'ending in "." or space'],
  ['a ', 'ending in "." or space'],
  ['CON', 'Windows device'],
  ['dir/nul.txt', 'Windows device'],
  ['x'.repeat(256), 'over 255 bytes'],
  ['e\u0301', 'NFC'],
  [`${'a/'.repeat(600)}b`, 'longer than 1024 bytes'],
];

describe('safe artifact names (docs/PROTOCOL.md §2)', () => {
  for (const name of safe) {
    it(`accepts ${JSON.stringify(name.slice(0, 40))}`, () => {
      expect(unsafeNameReason(name)).toBeUndefined();
      expect(isSafeArtifactName(name)).toBe(true);
    });
  }
  for (const [name, reason] of unsafe) {
    it(`refuses ${JSON.stringify(name.slice(0, 40))} because it ${reason}`, () => {
      expect(unsafeNameReason(name)).toContain(reason);
      expect(isSafeArtifactName(name)).toBe(false);
    });
  }
  it('sorts by UTF-8 bytes, so uppercase comes before lowercase and ASCII before é', () => {
    expect(['b', 'é', 'B', 'a'].sort(compareNames)).toEqual(['B', 'a', 'b', 'é']);
  });
});

/**
 * The rules as plain regular expressions, independent of the source's one-walk fast path: on
 * names built from the characters each rule turns on, every verdict must agree (safe or not;
 * the reason itself comes from the same ordered rules in both).
 */
function referenceSafe(name: string): boolean {
  if (name.length === 0 || Buffer.byteLength(name) > 1024) return false;
  // eslint-disable-next-line no-control-regex -- control characters are what the rule refuses
  if (/^\/|^[A-Za-z]:|[\u0000-\u001f\u007f\\:*?"<>|]/.test(name)) return false;
  if (name.normalize('NFC') !== name) return false;
  return name
    .split('/')
    .every(
      (s) =>
        s !== '' &&
        s !== '.' &&
        s !== '..' &&
        Buffer.byteLength(s) <= 255 &&
        !/[. ]$/.test(s) &&
        !/^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i.test(s),
    );
}

describe('the fast path agrees with the rules', () => {
  const parts = ['a', 'B', '.', ' ', '/', 'con', 'NUL', 'com1', 'lpt9', 'aux.', 'x.tar', '~'];
  const odd = [
    '\\',
    ':',
    '*',
    '?',
    '"',
    '<',
    '>',
    '|',
    '\u0000',
    '\u001f',
    '\u007f',
    'é',
    'e\u0301',
  ];
  it('on 20,000 generated names', () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let refused = 0;
    for (let k = 0; k < 20_000; k++) {
      let name = '';
      for (let len = 1 + next(8); len > 0; len--) {
        name +=
          next(10) === 0
            ? (odd[next(odd.length)] as string)
            : (parts[next(parts.length)] as string);
      }
      if (next(50) === 0) name = 'd/'.repeat(next(2) === 0 ? 255 : 600) + name;
      if (next(50) === 0) name = `${'s'.repeat(250 + next(10))}/${name}`;
      const safe = referenceSafe(name);
      if (!safe) refused++;
      expect(unsafeNameReason(name) === undefined, JSON.stringify(name)).toBe(safe);
    }
    // Both verdicts were exercised many times.
    expect(refused).toBeGreaterThan(2_000);
    expect(refused).toBeLessThan(18_000);
  });
});
