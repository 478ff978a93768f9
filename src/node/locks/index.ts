/** The locks group's only door: what the rest of the updater uses of it. */
export { acquireLock } from './lock-file.js';
export type { LockHandle } from './lock-file.js';
