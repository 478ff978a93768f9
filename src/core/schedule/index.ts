/** The schedule group's only door: what the rest of the updater uses of it. */
export { Scheduler } from './scheduler.js';
export { createUpdateLoop } from './update-loop.js';
export { TUF_METADATA_PATH, TUF_TARGETS_PATH } from './tuf-step.js';
export type { TufRunPorts } from './run-context.js';
