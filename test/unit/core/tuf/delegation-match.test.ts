import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isSuccinctRoleName,
  matchesPathPattern,
  rolesForTarget,
  succinctRoleFor,
} from '#core/tuf/index.js';
import type { Delegations, SuccinctRoles } from '#protocol/tuf/index.js';

describe('matchesPathPattern (TUF spec §4.5 "paths")', () => {
  it.each([
    ['README.md', '*.md', true],
    ['docs/README.md', '*.md', false],
    ['releases/x/x_v1', 'releases/*/*', true],
    ['releases/x', 'releases/*/*', false],
    ['foo-1.tgz', 'foo-?.tgz', true],
    ['foo-10.tgz', 'foo-?.tgz', false],
    ['README.MD', '*.md', false],
    ['a.txt', '[a-c].txt', true],
    ['d.txt', '[a-c].txt', false],
    ['d.txt', '[!a-c].txt', true],
    ['a]b', 'a[]]b', true],
    ['a[b', 'a[b', true],
    ['b', '[z-a]', false],
    ['a.b', 'a?b', true],
    ['a(b)', 'a(b)', true],
    ['é', '?', true],
  ])('%j against %j is %s', (path, pattern, expected) => {
    expect(matchesPathPattern(path, pattern)).toBe(expected);
  });
});

describe('hash bins', () => {
  const succinct: SuccinctRoles = { keyids: [], threshold: 1, bitLength: 8, namePrefix: 'bin' };

  it('names the bin from the first bit_length bits of SHA-256(path), zero-padded', () => {
    const first = createHash('sha256').update('file').digest('hex').slice(0, 2);
    expect(succinctRoleFor(succinct, 'file')).toBe(`bin-${first}`);
    expect(succinctRoleFor({ ...succinct, bitLength: 1 }, 'file')).toMatch(/^bin-[01]$/);
  });

  it('knows its own bin names only', () => {
    expect(isSuccinctRoleName(succinct, 'bin-0a')).toBe(true);
    expect(isSuccinctRoleName(succinct, 'bin-a')).toBe(false);
    expect(isSuccinctRoleName(succinct, 'bin-0A')).toBe(false);
    expect(isSuccinctRoleName(succinct, 'other-0a')).toBe(false);
  });

  it('routes a path to the role whose path_hash_prefixes match', () => {
    const digest = createHash('sha256').update('file').digest('hex');
    const delegations: Delegations = {
      keys: new Map(),
      succinctRoles: undefined,
      roles: [
        {
          name: 'no',
          keyids: [],
          threshold: 1,
          terminating: false,
          paths: undefined,
          pathHashPrefixes: ['zz'],
        },
        {
          name: 'yes',
          keyids: [],
          threshold: 1,
          terminating: true,
          paths: undefined,
          pathHashPrefixes: [digest.slice(0, 3)],
        },
      ],
    };
    expect(rolesForTarget(delegations, 'file')).toEqual([{ name: 'yes', terminating: true }]);
  });
});
