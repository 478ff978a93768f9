/** The fs group's only door: what the rest of the updater uses of it. */
export { EarlyWriteback, WRITEBACK_EVERY_BYTES } from './early-writeback.js';
export { errno, exists, io, isDiskFull } from './fs-errors.js';
export { FsSync, syncfsReportsErrors } from './fs-sync.js';
export type { CommandRunner } from './fs-sync.js';
export {
  ensureRealDir,
  lstatNoLink,
  openNoFollow,
  prepareStateDir,
  readNoFollow,
  unsafeEntry,
} from './safe-fs.js';
export { SyncCoprocess } from './sync-coprocess.js';
export { writeAll, writeAllSync } from './write-all.js';
export { ensureStateDirs, envelopePath, stateDirPaths } from './state-dir.js';
export type { StateDirPaths } from './state-dir.js';
