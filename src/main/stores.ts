/**
 * What the user chose and keeps, opened once at start: the settings (or, for a refused file,
 * in-memory defaults and the refusal), the machine key under safeStorage, and the settings
 * screen's trusted root (docs/DESKTOP.md "Settings").
 */
import { join } from 'node:path';
import { app, safeStorage } from 'electron';
import { isUpdateError, type UpdateError } from '#core/errors.js';
import { createSecretStore, type SecretStore } from '#app/settings/secret-store.js';
import { memorySettings, openSettingsStore, type SettingsStore } from '#app/settings/settings.js';
import { fileTrustedRoot, type TrustedRootStore } from '#app/settings/trusted-root.js';

export interface Stores {
  readonly settings: SettingsStore;
  readonly refusal: UpdateError | null;
  readonly secrets: SecretStore;
  readonly trustedRoot: TrustedRootStore;
}

/** Opens all three; `logError` hears why a settings file was refused. */
export async function openStores(logError: (message: string) => void): Promise<Stores> {
  const { settings, refusal } = await openSettings(logError);
  const secrets = openSecrets(settings);
  // Kept beside settings.json.
  const trustedRoot = await fileTrustedRoot(join(app.getPath('userData'), 'trusted-root.json'));
  return { settings, refusal, secrets, trustedRoot };
}

/** Opens the settings file; a refused file leaves in-memory defaults and the refusal. */
async function openSettings(
  logError: (message: string) => void,
): Promise<{ settings: SettingsStore; refusal: UpdateError | null }> {
  try {
    return { settings: await openSettingsStore(), refusal: null };
  } catch (error) {
    if (!isUpdateError(error)) throw error;
    const cause = error.cause instanceof Error ? error.cause.message : '';
    logError(`settings refused: ${error.message} ${cause}`);
    // Defaults in memory for this session; the refused file is left for the user to fix.
    return { settings: memorySettings(), refusal: error };
  }
}

/** The machine key under safeStorage; one given in the environment is stored first. */
function openSecrets(settings: SettingsStore): SecretStore {
  const secrets = createSecretStore(safeStorage, {
    get: () => settings.get('machineKeyCiphertext'),
    set: (value) => settings.set('machineKeyCiphertext', value),
  });
  // Entry point only: the machine key may arrive in the environment, never in argv (ps).
  const envKey = process.env['UPDATER_MACHINE_KEY'];
  if (envKey !== undefined && envKey !== '') secrets.save(envKey);
  return secrets;
}
