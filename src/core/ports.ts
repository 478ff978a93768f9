/**
 * The ports of the pure core: everything that touches the network, the disk or time comes in
 * through these interfaces (docs/ARCHITECTURE.md §Habits). src/node has the real ones; tests use in-memory
 * fakes.
 */
import type { AuditRecord } from './install/index.js';
import type { InstalledArtifact, UpdaterState } from './state.js';

/** Wall-clock milliseconds since the epoch. */
export interface Clock {
  nowMs(): number;
}

export type TimerHandle = object | number;

/** Timers, injected so tests drive time by hand. */
export interface Timers {
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Uniform random number in [0, 1), for jitter. */
export type Random = () => number;

/** `length` bytes from a CSPRNG (the request nonce, docs/PROTOCOL.md §2.7.5). */
export type RandomBytes = (length: number) => Uint8Array;

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** One HTTP response, body not read yet. */
export interface FetchResponse {
  readonly status: number;
  /** Header value by lowercase name. */
  header(name: string): string | undefined;
  /**
   * The body as it arrives. Never decoded, except a `Content-Encoding: gzip` answer to a request
   * sent with `acceptGzip`, which comes inflated as it streams (`inflated` is then true). Each
   * chunk is a buffer the fetcher never writes into again: a verified piece may be kept as a
   * view of it until it is stored (chunks/piece-assembler.ts).
   */
  readonly body: AsyncIterable<Uint8Array>;
  /** True when `body` is the inflated form of a gzip-coded answer (FetchInit.acceptGzip). */
  readonly inflated?: boolean;
  /**
   * Bytes received over the wire so far, where they differ from the body's (an inflated
   * answer); absent when the body's bytes are the wire's. Stall and throughput watches count
   * these (docs/UPDATER.md §5).
   */
  wireBytes?(): number;
  /** Drops the rest of the body and the connection. */
  discard(): void;
}

/** What a GET is sent with. */
export interface FetchInit {
  readonly headers: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /**
   * The answer may come gzip-coded (docs/PROTOCOL.md §2.7.6, Content coding): the adapter sends
   * `Accept-Encoding: gzip` in place of the core's `identity` and inflates a gzip answer as it
   * streams, never holding more than a chunk of it; the core bounds the inflated bytes. Only
   * for the manifest answer: artifacts, ranges and chunks are incompressible, and a Range of a
   * coded representation is a range of the coded bytes.
   */
  readonly acceptGzip?: boolean;
}

/**
 * A single HTTP GET. No redirects are followed and no status is an error: the core decides
 * (so it alone decides where the machine key may go). Network failures reject with an
 * UpdateError (NETWORK, ABORTED); the connect timeout lives here.
 */
export interface Fetcher {
  get(url: string, init: FetchInit): Promise<FetchResponse>;
  /**
   * True when a whole-file GET of `url` (no Range, no gzip) shares its connection with other
   * GETs in flight (HTTP/1.1 pipelining: docs/UPDATER.md §5, "Pipelined GETs"), so a pull may
   * keep more requests than `limits.parallel` outstanding without opening more connections.
   * Absent: one GET per connection.
   */
  pipelines?(url: string): boolean;
}

/** An artifact being downloaded: a temporary file hashed as it grows. */
export interface PartialBlob {
  /** Bytes already present (resumed from an earlier run, re-hashed on open). */
  readonly offset: number;
  /** The HTTP validator (strong ETag or Last-Modified) the partial bytes came with. */
  readonly validator: string | undefined;
  setValidator(validator: string | undefined): Promise<void>;
  /** Appends bytes; refuses (SIZE_MISMATCH) anything past the signed size. */
  write(chunk: Uint8Array): Promise<void>;
  /** Drops the partial bytes (the server answered 200 to a Range request, or they were bad). */
  reset(): Promise<void>;
  /** Flushes, checks size and SHA-256 against the signed values, promotes it into the store. */
  complete(): Promise<void>;
  /** Flushes and closes, keeping the partial bytes for a later resume. */
  close(): Promise<void>;
}

/** What a health check is told about the set it judges (now the live one). */
export interface HealthTarget {
  readonly version: string;
  readonly setId: string;
  /** The set's directory name (the node adapter turns it into a path). */
  readonly dir: string;
}

export type HealthVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Runs a health check against a set just installed (docs/UPDATER.md §3, Health check): the
 * node adapter spawns a command or calls a function. The core owns the deadline: at its end it
 * aborts `signal`, and the probe must then stop what it started (kill the process) and settle.
 */
export interface HealthProbe {
  check(target: HealthTarget, signal: AbortSignal): Promise<HealthVerdict>;
}

/** A set to be staged from blobs: its id, the directory to stage it in, its files. */
export interface SetToStage {
  readonly setId: string;
  /** Directory to stage it in (default `setId`); a repair uses a fresh one. */
  readonly dir?: string;
  readonly artifacts: readonly InstalledArtifact[];
}

/** The local state directory: state file, content-addressed blobs, installed sets. */
export interface LocalStore {
  loadState(): Promise<UpdaterState>;
  /** Replaces the state file atomically. */
  saveState(state: UpdaterState): Promise<void>;
  /** True when a verified blob with this digest and size is in the store. */
  hasBlob(sha256: string, size: number): Promise<boolean>;
  openPartial(sha256: string, size: number): Promise<PartialBlob>;
  /**
   * Stores `bytes` as the blob `sha256` of `size` bytes, with the durability of any blob, and
   * does NOT hash them again: only for bytes the caller has itself just hashed and found equal
   * to `sha256` (a pack member, checked as its last byte arrived: docs/UPDATER.md §11, step 4).
   * The size is checked (SIZE_MISMATCH). Absent: `storeVerified` (store-verified.ts) goes
   * through `openPartial`, whose `complete` hashes them.
   */
  storeVerified?(sha256: string, size: number, bytes: Uint8Array): Promise<void>;
  /**
   * Waits until every blob whose partial `complete()`d is in the store: a store may finish
   * promotions behind the downloads (docs/UPDATER.md §3, Durability). Throws the first failure.
   */
  settleBlobs?(): Promise<void>;
  /**
   * Told, before the pull, the set this run will commit (its directory and every name of each
   * blob): a store may then link each blob into that set's staging tree as it arrives, so the
   * commit links only what the pull did not bring (docs/UPDATER.md §3, Staging during the
   * pull). A promise, not a commit: nothing is live until `commitSet`. `envelope`: the signed
   * bytes the commit will keep, which a store may write durably now (never trusted by itself).
   */
  expectSet?(set: SetToStage & { readonly envelope?: Uint8Array }): Promise<void>;
  /**
   * Builds the set from blobs and switches DIR/current to it atomically, writing `next` as the
   * new state in the same crash-safe commit. `envelope` is kept for `verify`.
   */
  commitSet(set: SetToStage & { readonly envelope: Uint8Array }, next: UpdaterState): Promise<void>;
  /** Switches DIR/current to an existing set directory (rollback), same commit protocol. */
  switchSet(dir: string, next: UpdaterState): Promise<void>;
  /**
   * Names of installed artifacts failing a cheap check under DIR/current, with no hashing:
   * missing, not a regular file, wrong size, or written since install (the blob sentinel).
   */
  checkInstalled(artifacts: readonly InstalledArtifact[]): Promise<readonly string[]>;
  /** The signed envelope bytes a set was installed from. */
  loadEnvelope(setId: string): Promise<Uint8Array | undefined>;
  /**
   * Replaces the signed bytes kept for an installed set (atomically): the same release
   * re-signed, e.g. co-signed by new release keys before a rotation (docs/PROTOCOL.md §2.7.5).
   */
  saveEnvelope(setId: string, envelope: Uint8Array): Promise<void>;
  /** Re-hashes every regular file under DIR/current (name -> size and SHA-256). */
  scanInstalled(): Promise<readonly InstalledArtifact[]>;
  /** Appends a newly accepted manifest to the hash-chained audit log (audit-log.ts). */
  appendAudit(record: AuditRecord): Promise<void>;
}
