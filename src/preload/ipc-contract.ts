/**
 * The one contract between the main process and the window: channel names and the plain,
 * structured-clone-safe shapes that cross it. The preload, the main process and the e2e test
 * bridge all import it, so the three can never drift apart.
 */
import type { ActiveMachine } from '../protocol/activity.js';

/** Name of the global the window reads (`window.updater`). */
export const API_GLOBAL = 'updater';

/** Invoke channels (renderer -> main, request/response). */
export const IPC_CHANNELS = {
  getStatus: 'updater:get-status',
  checkNow: 'updater:check-now',
  getActivity: 'activity:get',
} as const;

/** Push channel (main -> renderer). */
export const STATUS_EVENT_CHANNEL = 'updater:status';

export type UpdatePhase = 'idle' | 'checking' | 'downloading' | 'applying';

/** What the window shows about the updater; built by src/main/status-model.ts. */
export interface AppStatus {
  /** "Demo registry" or the configured registry's host. */
  readonly registryLabel: string;
  readonly installedVersion: string | null;
  readonly phase: UpdatePhase;
  /** Set while pulling: bytes verified so far of the run's total. */
  readonly progress: { readonly bytes: number; readonly total: number } | null;
  readonly lastCheckAtMs: number | null;
  readonly nextCheckAtMs: number | null;
  readonly paused: boolean;
  readonly lastError: { readonly code: string; readonly message: string } | null;
}

/** The activity widget's data, already classified by the main process. */
export type ActivityResult =
  | {
      readonly state: 'ok';
      readonly machines: readonly ActiveMachine[];
      readonly generatedAt: string;
      readonly windowUnits: number;
    }
  | { readonly state: 'offline'; readonly message: string }
  | { readonly state: 'error'; readonly code: string; readonly message: string };
