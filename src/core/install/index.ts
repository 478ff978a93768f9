/** The install group's only door: what the rest of the updater uses of it. */
export { nextAuditEntry, verifyAuditLog } from './audit-log.js';
export type { AuditRecord } from './audit-log.js';
export { isStep } from './install-steps.js';
export type { StepHook } from './install-steps.js';
