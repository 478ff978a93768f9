/**
 * The updater's Node entry (docs/UPDATER.md §7): create an updater over a state directory, and
 * find the live set of one whatever its swap strategy.
 *
 * @example
 * import { createNodeUpdater, resolveCurrentSet } from './src/node/index.js';
 * const updater = await createNodeUpdater({ baseUrl, machineKey, pubkeys: [hex], dir });
 * try { await updater.update(); } finally { await updater.close(); }
 * const live = await resolveCurrentSet(dir); // absolute path of the installed set, or null
 */
export {
  createNodeUpdater,
  type NodeHealthOption,
  type NodeUpdaterOptions,
} from './create-updater.js';
export {
  defaultSwap,
  resolveCurrentSet,
  SWAP_STRATEGIES,
  type SwapStrategy,
} from './store/index.js';
export type { HealthFunction } from './health-probe.js';
export { UpdateError, type UpdateErrorCode } from '#core/errors.js';
export type { UpdateEvent, UpdateListener } from '#core/events.js';
export type {
  ConfirmResult,
  UpdateResult,
  UpdaterApi,
  UpdaterStatus,
  VerifyReport,
} from '#core/updater-api.js';
