import { describe, expect, it } from 'vitest';
import {
  compareNames,
  isSafeArtifactName,
  unsafeNameReason,
} from '../../../src/protocol/artifact-name.js';

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
