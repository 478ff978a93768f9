/** The health group's only door: what the rest of the updater uses of it. */
export {
  DEFAULT_HEALTH_TIMEOUT_MS,
  badReason,
  confirmInstalled,
  judgeNewSet,
  probationFor,
  settleProbation,
} from './health-check.js';
export type { ConfirmResult, HealthConfig, HealthContext } from './health-check.js';
export { EMPTY_HEALTH, keepBadVersions, parseHealth } from '../health-state.js';
export type { HealthMode, HealthState } from '../health-state.js';
