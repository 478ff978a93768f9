/**
 * What one network run of the updater works with, shared by the accept step (accept-step.ts)
 * and the pull, commit and install steps (update-steps.ts).
 */
import type { ChunkPorts } from '../chunks/index.js';
import type { AnswerCache } from '../trust/index.js';
import type { UpdateEvent } from '../events.js';
import type { HealthContext } from '../health/index.js';
import type { HttpContext } from '../transfer/index.js';
import type { StepHook } from '../install/index.js';
import type { Limits } from '../limits.js';
import type { LocalStore, Logger, Random, RandomBytes } from '../ports.js';
import type { PinnedKey } from '../trust/index.js';
import type { MetadataStore, TufClientConfig } from '../tuf/index.js';

/** The TUF ports of a run: the metadata store under DIR/.updater/tuf and the client config. */
export interface TufRunPorts {
  readonly store: MetadataStore;
  readonly config?: Partial<TufClientConfig>;
}

/** What one network run works with: its HTTP context (built once per run) and its ports. */
export interface RunContext {
  readonly http: HttpContext;
  readonly store: LocalStore;
  readonly random: Random;
  readonly logger: Logger;
  readonly pinned: readonly PinnedKey[];
  readonly limits: Limits;
  /**
   * Send a fresh nonce with every manifest request and accept only a freshness statement that
   * carries it (docs/PROTOCOL.md §2.7.5); `randomBytes` makes it.
   */
  readonly requireNonce: boolean;
  readonly randomBytes: RandomBytes;
  readonly signal: AbortSignal;
  readonly emit: (event: UpdateEvent) => void;
  readonly onStep?: StepHook | undefined;
  /** The chunked path (docs/UPDATER.md §9); without it every blob is fetched whole. */
  readonly chunks?: ChunkPorts | undefined;
  /** The last manifest answer, for a conditional fetch (answer-cache.ts); none: always 200. */
  readonly answers?: AnswerCache | undefined;
  /** The health check of new sets (health-check.ts), with its config when one is set. */
  readonly health: HealthContext;
  /**
   * Set when the state directory holds a trusted TUF root: the run then speaks TUF only
   * (tuf-step.ts) and the pinned keys serve `verify` of format 1/2 sets alone.
   */
  readonly tuf?: TufRunPorts | undefined;
}

/** The run's injected clock: core code never reads the wall clock itself. */
export const nowOf = (run: RunContext): number => run.http.clock.nowMs();
