/**
 * The setting "update the app itself": automatically, ask first, or never (docs/RELEASING.md
 * "Self-update targets"). Pure.
 */
export type SelfUpdateMode = 'auto' | 'ask' | 'never';

export const SELF_UPDATE_MODES: readonly SelfUpdateMode[] = ['auto', 'ask', 'never'];
/** Ask first: replacing the running app restarts it, which the user should see coming. */
export const DEFAULT_SELF_UPDATE_MODE: SelfUpdateMode = 'ask';

export function parseSelfUpdateMode(value: unknown): SelfUpdateMode {
  return SELF_UPDATE_MODES.find((mode) => mode === value) ?? DEFAULT_SELF_UPDATE_MODE;
}
