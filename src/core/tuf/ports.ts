/**
 * The ports of the TUF client workflow: the clock, the fetcher and the metadata store come in
 * through these interfaces so the workflow stays pure. src/node/tuf has the real ones; tests
 * use in-memory fakes.
 */

/** Wall-clock milliseconds since the epoch; expiry is judged against it (TUF spec §5.1). */
export interface TufClock {
  nowMs(): number;
}

/**
 * GETs a URL's bytes, reading no more than `maxBytes` (TUF spec §5.2.2: every download is
 * bounded). Throws TufError NOT_FOUND for 403 and 404 (the end of the root chain, TUF spec
 * §5.3.3), TOO_LARGE past the cap and FETCH_FAILED for anything else that goes wrong.
 */
export interface TufFetcher {
  get(url: string, maxBytes: number): Promise<Uint8Array>;
}

/**
 * Trusted metadata by role name (`root`, `timestamp`, `snapshot`, `targets`, or a delegated
 * role's name as written). The store maps names to files safely; it keeps bytes as given.
 */
export interface MetadataStore {
  /** The stored bytes, or undefined when there are none. */
  read(role: string): Promise<Uint8Array | undefined>;
  /** Replaces the role's bytes, atomically: a reader sees the old or the new bytes. */
  write(role: string, bytes: Uint8Array): Promise<void>;
  /** Forgets the role's bytes; no error when there are none. */
  remove(role: string): Promise<void>;
  /**
   * The retired keys list kept beside root (src/core/tuf/retired-keys.ts): advisory, it only
   * names refusals. Kept under a name no role's file can have.
   */
  readRetiredKeys(): Promise<Uint8Array | undefined>;
  /** Replaces the retired keys list, atomically. */
  writeRetiredKeys(bytes: Uint8Array): Promise<void>;
}
