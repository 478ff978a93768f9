/**
 * The window's only way out: the API the preload exposes as `window.updater`. The type is the
 * preload's own (`typeof api`), imported as a type only, so renderer and preload cannot drift
 * apart and no preload code is bundled into the page.
 */
import type { Api } from '#preload/index.js';

/** Returns the bridge, or throws a clear error when the page runs without its preload. */
export function getApi(): Api {
  // 'updater' is API_GLOBAL in src/preload/ipc-contract.ts (checked by a unit test).
  const api = (window as unknown as { updater?: Api }).updater;
  if (api === undefined) throw new Error('The updater bridge is missing (no preload).');
  return api;
}
