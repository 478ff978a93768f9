import { describe, expect, it } from 'vitest';
import { createSecretStore, type SafeStorageLike } from '#app/settings/secret-store.js';

function slot(initial = '') {
  let value = initial;
  return { get: () => value, set: (v: string) => (value = v), peek: () => value };
}

// A reversible stand-in for the OS keychain: not crypto, just proves the wiring.
function safeStorage(available = true, backend?: string): SafeStorageLike {
  const storage: SafeStorageLike = {
    isEncryptionAvailable: () => available,
    encryptString: (text) => Buffer.from(`enc:${text}`),
    decryptString: (data) => {
      const text = data.toString();
      if (!text.startsWith('enc:')) throw new Error('bad ciphertext');
      return text.slice(4);
    },
  };
  if (backend !== undefined) storage.getSelectedStorageBackend = () => backend;
  return storage;
}

describe('machine key in safeStorage', () => {
  it('stores only ciphertext and reads the key back', () => {
    const s = slot();
    const store = createSecretStore(safeStorage(), s);
    expect(store.save('mk_secret')).toBe(true);
    expect(s.peek()).not.toContain('mk_secret');
    expect(createSecretStore(safeStorage(), s).load()).toBe('mk_secret');
  });

  it('keeps the key in memory only when encryption is unavailable', () => {
    const s = slot();
    const store = createSecretStore(safeStorage(false), s);
    expect(store.save('mk_secret')).toBe(false);
    expect(s.peek()).toBe('');
    expect(store.load()).toBe('mk_secret');
  });

  it("refuses to persist with Linux's basic_text backend (hard-coded password)", () => {
    const s = slot();
    expect(createSecretStore(safeStorage(true, 'basic_text'), s).save('mk_secret')).toBe(false);
    expect(s.peek()).toBe('');
  });

  it('treats undecryptable ciphertext as no key', () => {
    expect(createSecretStore(safeStorage(), slot('Z2FyYmFnZQ==')).load()).toBeNull();
  });

  it('returns null when nothing is stored', () => {
    expect(createSecretStore(safeStorage(), slot()).load()).toBeNull();
  });

  it('clear() forgets the key', () => {
    const s = slot();
    const store = createSecretStore(safeStorage(), s);
    store.save('mk_secret');
    store.clear();
    expect(store.load()).toBeNull();
    expect(s.peek()).toBe('');
  });
});
