import { describe, expect, it } from 'vitest';
import { UpdateError } from '#core/errors.js';
import { createAppController } from '#app/app-controller.js';
import { refusingUpdater } from '#app/refusing-updater.js';

const refused = new UpdateError(
  'NO_PINNED_KEY',
  'A configured registry needs a pinned public key.',
);

describe('refusing updater (configuration refused)', () => {
  it('rejects every operation with the configuration error', async () => {
    const updater = refusingUpdater(refused);
    await expect(updater.update()).rejects.toBe(refused);
    await expect(updater.check()).rejects.toBe(refused);
    await expect(updater.rollback()).rejects.toBe(refused);
    await expect(updater.verify()).rejects.toBe(refused);
    await expect(updater.status()).resolves.toMatchObject({
      installedVersion: null,
      lastError: { code: 'NO_PINNED_KEY' },
    });
  });

  it('makes the window show the code from the start, and again after Check now', async () => {
    const app = createAppController({
      updater: refusingUpdater(refused),
      registryLabel: 'Not configured',
      fetchActivity: () => Promise.resolve({ state: 'offline', message: 'x' }),
    });
    await app.start();
    expect(app.getStatus().lastError).toMatchObject({
      code: 'NO_PINNED_KEY',
      message: 'A configured registry needs a pinned public key.',
      kind: 'settings',
    });
    await app.checkNow();
    expect(app.getStatus()).toMatchObject({ phase: 'idle', lastError: { code: 'NO_PINNED_KEY' } });
  });
});
