/**
 * The updater the app runs when its configuration is refused (no pinned key, bad URL, no
 * machine key, state directory locked): every operation fails with that same typed error,
 * so the window and tray show it in plain words with its code instead of the app vanishing.
 * Fail closed: nothing is fetched, nothing is installed.
 */
import type { UpdateError } from '#core/errors.js';
import type { UpdaterApi, UpdaterStatus } from '#core/updater-api.js';

/** An UpdaterApi whose every operation rejects with `error`. */
export function refusingUpdater(error: UpdateError): UpdaterApi {
  const status: UpdaterStatus = {
    installedVersion: null,
    highestAcceptedVersion: null,
    lastCheckAtMs: null,
    lastSuccessAtMs: null,
    lastError: error.toJSON(),
    running: false,
    canRollBack: false,
    probation: null,
    badVersions: [],
  };
  const refuse = (): Promise<never> => Promise.reject(error);
  return {
    check: refuse,
    update: refuse,
    rollback: refuse,
    verify: refuse,
    confirm: refuse,
    status: () => Promise.resolve(status),
    on: () => () => undefined,
    close: () => Promise.resolve(),
  };
}
