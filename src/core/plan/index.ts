/** The plan group's only door: what the rest of the updater uses of it. */
export { holdsExactly, planHeldSet, planUpdate, reused } from './plan.js';
export type { Plan } from './plan.js';
export { repairDir, repairPlan } from './repair.js';
