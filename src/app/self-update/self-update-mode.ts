/**
 * The setting "update the app itself": automatically, ask first, or never (docs/RELEASING.md
 * "Self-update targets"). Pure. The choices are the settings contract's, so the screen, the
 * stored settings and the runner never disagree.
 */
import { SELF_UPDATE_CHOICES, type SelfUpdateChoice } from '#preload/ipc-contract.js';

export type SelfUpdateMode = SelfUpdateChoice;

export const SELF_UPDATE_MODES: readonly SelfUpdateMode[] = SELF_UPDATE_CHOICES;
/** Ask first: replacing the running app restarts it, which the user should see coming. */
export const DEFAULT_SELF_UPDATE_MODE: SelfUpdateMode = 'ask';

export function parseSelfUpdateMode(value: unknown): SelfUpdateMode {
  return SELF_UPDATE_MODES.find((mode) => mode === value) ?? DEFAULT_SELF_UPDATE_MODE;
}
