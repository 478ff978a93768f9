import { describe, expect, it } from 'vitest';
import {
  MAX_PINNED_KEYS,
  normalizePinnedKey,
  pinnedKeyProblem,
  pinnedKeysProblem,
  registryUrlProblem,
} from '#app/registry/registry-fields.js';

const KEY = 'ab'.repeat(32);

describe('registryUrlProblem', () => {
  it('accepts https anywhere and plain http on this computer only', () => {
    expect(registryUrlProblem('https://updates.example.com')).toBeNull();
    expect(registryUrlProblem('  https://updates.example.com/base/  ')).toBeNull();
    expect(registryUrlProblem('http://127.0.0.1:4100')).toBeNull();
    expect(registryUrlProblem('http://localhost:4100')).toBeNull();
    expect(registryUrlProblem('http://[::1]:4100')).toBeNull();
  });

  it('refuses an empty address with an example', () => {
    expect(registryUrlProblem('  ')).toMatch(/^Enter the registry address, for example https:/);
  });

  it('refuses what is not a web address', () => {
    expect(registryUrlProblem('updates.example.com')).toBe(
      'This is not a web address. It starts with https://.',
    );
  });

  it('refuses plain http to another computer (the machine key would travel in clear)', () => {
    expect(registryUrlProblem('http://updates.example.com')).toBe(
      'The address must start with https:// (plain http only on this computer).',
    );
    expect(registryUrlProblem('ftp://updates.example.com')).toMatch(/must start with https/);
  });

  it('refuses credentials, a query or a fragment in the address', () => {
    expect(registryUrlProblem('https://me:pw@updates.example.com')).toMatch(/user name/);
    expect(registryUrlProblem('https://updates.example.com/?x=1')).toMatch(/after \? or #/);
    expect(registryUrlProblem('https://updates.example.com/#top')).toMatch(/after \? or #/);
  });

  it('refuses an address longer than the settings allow', () => {
    expect(registryUrlProblem(`https://e.com/${'a'.repeat(2048)}`)).toBe(
      'This address is too long.',
    );
  });
});

describe('pinnedKeyProblem', () => {
  it('accepts 64 hex characters, in either case, and stores them lower case', () => {
    expect(pinnedKeyProblem(KEY)).toBeNull();
    expect(pinnedKeyProblem(` ${KEY.toUpperCase()} `)).toBeNull();
    expect(normalizePinnedKey(` ${KEY.toUpperCase()} `)).toBe(KEY);
  });

  it('says how many characters a key has when the length is wrong', () => {
    expect(pinnedKeyProblem('abc')).toBe('A public key has 64 characters; this one has 3.');
  });

  it('says which characters a key may have', () => {
    expect(pinnedKeyProblem('g'.repeat(64))).toBe(
      'A public key has only the digits 0-9 and the letters a-f.',
    );
  });

  it('asks for a key when the field is empty', () => {
    expect(pinnedKeyProblem('')).toBe('Enter the registry’s public key.');
  });
});

describe('pinnedKeysProblem', () => {
  it('accepts one or more distinct keys', () => {
    expect(pinnedKeysProblem([KEY])).toBeNull();
    expect(pinnedKeysProblem([KEY, 'cd'.repeat(32)])).toBeNull();
  });

  it('refuses no key at all: nothing would be trusted', () => {
    expect(pinnedKeysProblem([])).toMatch(/^Pin at least one public key/);
  });

  it('names the bad key by its position', () => {
    expect(pinnedKeysProblem([KEY, 'xyz'])).toBe(
      'Key 2: A public key has only the digits 0-9 and the letters a-f.',
    );
  });

  it('refuses a key listed twice, whatever its case', () => {
    expect(pinnedKeysProblem([KEY, KEY.toUpperCase()])).toBe('Key 2 is listed twice.');
  });

  it('refuses more keys than the settings hold', () => {
    const keys = Array.from({ length: MAX_PINNED_KEYS + 1 }, (_, i) =>
      i.toString(16).padStart(64, '0'),
    );
    expect(pinnedKeysProblem(keys)).toBe(`Pin at most ${MAX_PINNED_KEYS} keys.`);
  });
});
