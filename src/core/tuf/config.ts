/**
 * Limits and switches of the TUF client workflow. The byte caps bound every metadata download
 * whose length is not pinned by signed metadata (TUF spec §5.2.2, §5.3.3, §5.4.1).
 */
export interface TufClientConfig {
  /** How many new roots one refresh may walk (TUF spec §5.3.3's loop, bounded). */
  readonly maxRootRotations: number;
  /** How many targets roles one target search may visit (TUF spec §5.6.7). */
  readonly maxDelegations: number;
  /**
   * How many targets roles (top-level included) the release walk may load
   * (docs/PROTOCOL.md §TUF repository, "Delegated targets in a release").
   */
  readonly maxReleaseRoles: number;
  readonly rootMaxBytes: number;
  readonly timestampMaxBytes: number;
  /** Used when timestamp does not give snapshot's length. */
  readonly snapshotMaxBytes: number;
  /** Used when snapshot does not give a targets role's length. */
  readonly targetsMaxBytes: number;
  /**
   * A client-side bound on how far in the future a timestamp may expire, in seconds: a
   * timestamp key compromise then cannot freeze a client for longer. Not part of TUF 1.0.
   * `Number.POSITIVE_INFINITY` turns the bound off.
   */
  readonly maxTimestampLifetimeS: number;
  /** Whether consistent-snapshot target files are fetched as HASH.NAME (TUF spec §5.7.3). */
  readonly prefixTargetsWithHash: boolean;
}

export const DEFAULT_TUF_CONFIG: TufClientConfig = {
  maxRootRotations: 256,
  maxDelegations: 32,
  maxReleaseRoles: 1024,
  rootMaxBytes: 512_000,
  timestampMaxBytes: 16_384,
  snapshotMaxBytes: 2_000_000,
  targetsMaxBytes: 5_000_000,
  maxTimestampLifetimeS: 7 * 24 * 3600,
  prefixTargetsWithHash: true,
};

export function tufConfig(overrides: Partial<TufClientConfig> = {}): TufClientConfig {
  return { ...DEFAULT_TUF_CONFIG, ...overrides };
}
