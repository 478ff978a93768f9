/**
 * Repair of an installed set that is the accepted manifest on paper but damaged on disk
 * (docs/UPDATER.md §3, Repair): pure helpers; update-loop.ts runs the pull and the commit.
 */
import { createHash } from 'node:crypto';
import type { PlanSummary } from '../events.js';
import { planUpdate } from './plan.js';
import type { InstalledSet } from '../state.js';
import type { VerifiedManifest } from '../trust/index.js';

/** The plan of a repair: the damaged names count as not installed, the rest is reused. */
export function repairPlan(
  installed: InstalledSet,
  damaged: readonly string[],
  verified: VerifiedManifest,
): PlanSummary {
  const bad = new Set(damaged);
  const intact = installed.artifacts.filter((a) => !bad.has(a.name));
  return planUpdate({ ...installed, artifacts: intact }, verified).summary;
}

/**
 * A fresh set directory (64 hex, like a setId) for the repaired set: the damaged directory
 * cannot be rebuilt in place atomically, a new one is switched to by the usual commit.
 */
export function repairDir(setId: string, nowMs: number): string {
  return createHash('sha256').update(`${setId} repaired at ${nowMs}`).digest('hex');
}
