import { describe, expect, it } from 'vitest';
import {
  createSecretStore,
  sessionSeal,
  type SafeStorageLike,
} from '#app/settings/secret-store.js';

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

describe('session seal (proxy password)', () => {
  it('encrypts with safeStorage where it can, and opens again', () => {
    const seal = sessionSeal({
      isEncryptionAvailable: () => true,
      encryptString: (text) => Buffer.from(`enc:${text}`),
      decryptString: (box) => box.toString().slice(4),
    });
    const sealed = seal.seal('s3cret');
    expect(Buffer.isBuffer(sealed) && sealed.toString()).toBe('enc:s3cret');
    expect(seal.open(sealed)).toBe('s3cret');
  });

  it('keeps it in memory where no encryption exists', () => {
    const seal = sessionSeal({
      isEncryptionAvailable: () => false,
      encryptString: () => {
        throw new Error('unavailable');
      },
      decryptString: () => '',
    });
    expect(seal.open(seal.seal('s3cret'))).toBe('s3cret');
  });
});
