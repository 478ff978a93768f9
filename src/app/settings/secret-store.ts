/**
 * Keeps the machine key encrypted with Electron's safeStorage (OS keychain / DPAPI /
 * libsecret). Fails closed: where only the hard-coded-password backend exists ('basic_text'
 * on Linux without a keyring) the key is kept in memory for the session and never written.
 */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only in Electron; absent elsewhere. */
  getSelectedStorageBackend?: () => string;
}

/** Where the ciphertext lives (the settings store's machineKeyCiphertext field). */
export interface CiphertextSlot {
  get(): string;
  set(value: string): void;
}

export interface SecretStore {
  /** The stored machine key, or null when none is stored or it cannot be decrypted. */
  load(): string | null;
  /** Stores the key; returns false when it could only be kept in memory. */
  save(machineKey: string): boolean;
  clear(): void;
}

/** Creates the store over safeStorage and a ciphertext slot. */
export function createSecretStore(safeStorage: SafeStorageLike, slot: CiphertextSlot): SecretStore {
  let memoryOnly: string | null = null;
  const strong = (): boolean =>
    safeStorage.isEncryptionAvailable() &&
    safeStorage.getSelectedStorageBackend?.() !== 'basic_text';
  return {
    load() {
      if (memoryOnly !== null) return memoryOnly;
      const stored = slot.get();
      if (stored === '' || !safeStorage.isEncryptionAvailable()) return null;
      try {
        return safeStorage.decryptString(Buffer.from(stored, 'base64'));
      } catch {
        // Another user's or machine's keychain: unusable, so treat as absent (never guess).
        return null;
      }
    },
    save(machineKey) {
      if (!strong()) {
        memoryOnly = machineKey;
        return false;
      }
      slot.set(safeStorage.encryptString(machineKey).toString('base64'));
      memoryOnly = null;
      return true;
    },
    clear() {
      memoryOnly = null;
      slot.set('');
    },
  };
}

/** Where a machine key saved now is kept, in the settings screen's words. */
export function machineKeyStorageWords(safeStorage: SafeStorageLike): string {
  const strong =
    safeStorage.isEncryptionAvailable() &&
    safeStorage.getSelectedStorageBackend?.() !== 'basic_text';
  return strong
    ? 'Kept encrypted by your system’s keychain; never shown again.'
    : 'This system offers no keychain: the key is kept in memory until the app quits, never written in clear.';
}

/**
 * Seals a secret kept for the session only (the proxy password, proxy-login.ts): encrypted
 * with safeStorage where it can encrypt, so it is not readable as text in the process's memory
 * dumps; held as it is otherwise (it is never written anywhere).
 */
export function sessionSeal(safeStorage: SafeStorageLike): {
  seal(text: string): unknown;
  open(sealed: unknown): string;
} {
  return {
    seal: (text) =>
      safeStorage.isEncryptionAvailable() ? safeStorage.encryptString(text) : { plain: text },
    open: (sealed) =>
      Buffer.isBuffer(sealed)
        ? safeStorage.decryptString(sealed)
        : (sealed as { plain: string }).plain,
  };
}
