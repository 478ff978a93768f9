/**
 * The self-update's refusals and failures, with stable codes (docs/RELEASING.md "Self-update
 * targets"): `TAMPERED` (the installer on disk no longer matches the signed manifest),
 * `NOT_INSTALLED` (the registry's set holds no such file), `HAND_OVER_FAILED` (the platform step
 * failed; the running app is left as it was).
 */
export type SelfUpdateErrorCode = 'TAMPERED' | 'NOT_INSTALLED' | 'HAND_OVER_FAILED';

export class SelfUpdateError extends Error {
  readonly code: SelfUpdateErrorCode;

  constructor(code: SelfUpdateErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SelfUpdateError';
    this.code = code;
  }
}
