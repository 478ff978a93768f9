/**
 * GET /api/chain/active, 200 body (docs/PROTOCOL.md §5). Shared by the server, the
 * desktop widget and any client.
 */
export interface ActiveMachine {
  readonly rank: number;
  readonly id: string;
  readonly name: string;
  readonly transitions: number;
  /**
   * Only when asked (`series=1`): transitions per bucket of whole units over the window, oldest
   * first, at most SERIES_MAX_POINTS of them, summing to `transitions` (docs/PROTOCOL.md §5).
   */
  readonly series?: readonly number[];
}

export interface ActivityResponse {
  readonly ok: true;
  /** Number of completed time units counted. */
  readonly window: number;
  readonly limit: number;
  /** Length of one time unit in milliseconds (47000/60). */
  readonly unit_ms: number;
  /** Index of the last completed unit included in the window. */
  readonly as_of_unit: number;
  /** RFC 3339 time the ranking was computed. */
  readonly generated_at: string;
  readonly machines: readonly ActiveMachine[];
}

/** 60 units are about 47 s of wall-clock time (docs/INTERFACE.md §1). */
export const UNIT_MS = 47_000 / 60;
export const DEFAULT_WINDOW_UNITS = 60;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
/** Most points of a machine's series (`series=1`), whatever the window. */
export const SERIES_MAX_POINTS = 60;
