/**
 * `verified-updater`: the updater as a package, for QA suites that drive a real verified
 * install (docs/UPDATER.md §7). `createUpdater` is the Node composition of the core over a state
 * directory; the bin `verified-updater` is the headless CLI. One bundled file, no dependencies.
 * @example
 *   import { createUpdater } from 'verified-updater';
 *   const updater = await createUpdater({ baseUrl, machineKey, pubkeys: [hex], dir });
 *   try { await updater.update(); } finally { await updater.close(); }
 */
export {
  createNodeUpdater as createUpdater,
  resolveCurrentSet,
  UpdateError,
  type NodeUpdaterOptions as UpdaterOptions,
  type NodeHealthOption,
  type SwapStrategy,
  type UpdateErrorCode,
  type UpdateEvent,
  type UpdateListener,
  type UpdateResult,
  type UpdaterApi,
  type UpdaterStatus,
  type VerifyReport,
} from '../../../src/node/index.js';
