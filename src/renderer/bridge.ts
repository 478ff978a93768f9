/**
 * The window's only way out: the API the preload exposes as `window.updater`. The type is the
 * preload's own (`typeof api`), so renderer and preload cannot drift apart.
 */
import type { Api } from '../preload/index.js';
import { API_GLOBAL } from '../preload/ipc-contract.js';

/** Returns the bridge, or throws a clear error when the page runs without its preload. */
export function getApi(): Api {
  const api = (window as unknown as Record<string, Api | undefined>)[API_GLOBAL];
  if (api === undefined) throw new Error('The updater bridge is missing (no preload).');
  return api;
}
