import { describe, expect, it } from 'vitest';
import { isUpdateError } from '#core/errors.js';
import {
  MAX_SHIPPED_REGISTRY_BYTES,
  parseShippedRegistry,
  readShippedRegistry,
} from '#app/registry/shipped-registry.js';

const KEY = 'ab'.repeat(32);

function refusal(text: string): { code: string; message: string } {
  try {
    parseShippedRegistry(text);
  } catch (error) {
    if (isUpdateError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

describe('shipped registry.json', () => {
  it('reads the base URL and the pinned keys (normalised to lower case)', () => {
    const text = JSON.stringify({
      base_url: ' https://updates.example.com ',
      pinned_keys: [KEY.toUpperCase()],
    });
    expect(parseShippedRegistry(text)).toEqual({
      baseUrl: 'https://updates.example.com',
      pinnedKeys: [KEY],
    });
  });

  it('is absent: no shipped registry (the demo runs)', async () => {
    await expect(readShippedRegistry(() => Promise.resolve(null))).resolves.toBeNull();
  });

  it('is present: it is parsed', async () => {
    const text = JSON.stringify({ base_url: 'https://r.example', pinned_keys: [KEY] });
    await expect(readShippedRegistry(() => Promise.resolve(text))).resolves.toEqual({
      baseUrl: 'https://r.example',
      pinnedKeys: [KEY],
    });
  });

  it('refuses a file that is not JSON (CONFIG_INVALID, never the demo)', () => {
    expect(refusal('{ base_url')).toEqual({
      code: 'CONFIG_INVALID',
      message: 'The shipped registry.json is invalid: it is not JSON.',
    });
  });

  it('refuses a list or a string instead of an object', () => {
    expect(refusal('[]').message).toMatch(/one JSON object/);
    expect(refusal('"x"').message).toMatch(/one JSON object/);
  });

  it('refuses a misspelt field instead of ignoring it', () => {
    const text = JSON.stringify({ base_url: 'https://r.example', pinned_key: [KEY] });
    expect(refusal(text).message).toBe(
      'The shipped registry.json is invalid: unknown field "pinned_key".',
    );
  });

  it('refuses a plain-http base URL to another computer', () => {
    const text = JSON.stringify({ base_url: 'http://r.example', pinned_keys: [KEY] });
    expect(refusal(text)).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(refusal(text).message).toMatch(/^The shipped registry.json is invalid: base_url: /);
  });

  it('refuses a missing base URL', () => {
    expect(refusal(JSON.stringify({ pinned_keys: [KEY] })).message).toMatch(
      /"base_url" must be a string/,
    );
  });

  it('refuses no pinned key (fail closed: nothing would be trusted)', () => {
    const text = JSON.stringify({ base_url: 'https://r.example', pinned_keys: [] });
    expect(refusal(text).message).toMatch(/pinned_keys: Pin at least one public key/);
  });

  it('reads a trusted_root file name, which makes pinned_keys optional', () => {
    const text = JSON.stringify({ base_url: 'https://r.example', trusted_root: 'root.json' });
    expect(parseShippedRegistry(text)).toEqual({
      baseUrl: 'https://r.example',
      pinnedKeys: [],
      trustedRoot: 'root.json',
    });
  });

  it('refuses a trusted_root that is a path, not a plain .json file name', () => {
    for (const name of ['../root.json', '/etc/root.json', 'dir/root.json', 'root', 7]) {
      const text = JSON.stringify({ base_url: 'https://r.example', trusted_root: name });
      expect(refusal(text).message, String(name)).toMatch(/"trusted_root" must be a file name/);
    }
  });

  it('refuses pinned keys that are not strings', () => {
    const text = JSON.stringify({ base_url: 'https://r.example', pinned_keys: [1] });
    expect(refusal(text).message).toMatch(/must be a list of strings/);
  });

  it('refuses a malformed key', () => {
    const text = JSON.stringify({ base_url: 'https://r.example', pinned_keys: ['abc'] });
    expect(refusal(text).message).toMatch(/pinned_keys: A public key has 64 characters/);
  });

  it('refuses a file far larger than a registry description', () => {
    const text = JSON.stringify({
      base_url: 'https://r.example',
      pinned_keys: [KEY],
      pad: 'x'.repeat(MAX_SHIPPED_REGISTRY_BYTES),
    });
    expect(refusal(text).message).toMatch(/too large/);
  });
});
