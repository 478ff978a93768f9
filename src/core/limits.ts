/**
 * Every limit of the updater in one place, with its unit in its name (docs/ARCHITECTURE.md §Habits).
 * Defaults match the CLI contract (docs/UPDATER.md §Limits).
 */
import { UpdateError } from './errors.js';

export interface Limits {
  /** Artifacts pulled at the same time. */
  readonly parallel: number;
  /** Extra attempts for a transient failure (never for a refusal of signed data). */
  readonly retries: number;
  /** No byte for this long means STALLED. */
  readonly stallTimeoutMs: number;
  /** Slower than this over `throughputWindowMs` means STALLED (drip-feed defence). */
  readonly minBytesPerS: number;
  readonly throughputWindowMs: number;
  /** Bandwidth cap over all parallel transfers; 0 = none, else at least 64 KiB/s. */
  readonly maxBytesPerS: number;
  /**
   * Envelope bytes read at most. Left unset, it follows `maxArtifacts`
   * (`manifestBytesFor`), so the two defaults can be reached together.
   */
  readonly maxManifestBytes: number;
  readonly maxArtifactBytes: number;
  readonly maxArtifacts: number;
  readonly connectTimeoutMs: number;
  /** How far issued_at may lie ahead of our clock before MANIFEST_FROM_FUTURE. */
  readonly maxFutureSkewMs: number;
  /** First retry delay; doubles per attempt up to `retryMaxDelayMs`. */
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
  /** A Retry-After longer than this is not waited out inside a run: the run fails RATE_LIMITED. */
  readonly maxRetryAfterMs: number;
  /** Redirects followed per request. */
  readonly maxRedirects: number;
}

/**
 * Envelope bytes budgeted per artifact entry: a 100-character name, its 64-hex digest, size and
 * a URL naming both, as JSON, then base64 in the envelope (x4/3), is about 512 bytes.
 */
export const MANIFEST_BYTES_PER_ARTIFACT = 512;
/** Room for the envelope, signatures and the manifest's own fields, and for longer names. */
const MANIFEST_SLACK_BYTES = 3 * 1024 * 1024;

/**
 * The manifest byte limit that lets `maxArtifacts` entries fit: 8 MiB for the default 10,000
 * (docs/UPDATER.md §10.7), still small enough that an endless manifest costs little.
 */
export function manifestBytesFor(maxArtifacts: number): number {
  return Math.max(
    8 * 1024 * 1024,
    maxArtifacts * MANIFEST_BYTES_PER_ARTIFACT + MANIFEST_SLACK_BYTES,
  );
}

export const DEFAULT_LIMITS: Limits = Object.freeze({
  parallel: 4,
  retries: 3,
  stallTimeoutMs: 30_000,
  minBytesPerS: 1024,
  throughputWindowMs: 10_000,
  maxBytesPerS: 0,
  maxManifestBytes: manifestBytesFor(10_000),
  maxArtifactBytes: 4 * 1024 * 1024 * 1024,
  maxArtifacts: 10_000,
  connectTimeoutMs: 10_000,
  maxFutureSkewMs: 5 * 60_000,
  retryBaseDelayMs: 250,
  retryMaxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
  maxRedirects: 5,
});

/** Smallest non-zero bandwidth cap. */
export const MIN_CAP_BYTES_PER_S = 64 * 1024;

/** Lower and upper bounds of each limit; anything outside is CONFIG_INVALID (fail closed). */
const BOUNDS: { readonly [K in keyof Limits]: readonly [number, number] } = {
  parallel: [1, 64],
  retries: [0, 100],
  stallTimeoutMs: [1, 24 * 3_600_000],
  minBytesPerS: [0, Number.MAX_SAFE_INTEGER],
  throughputWindowMs: [1, 3_600_000],
  maxBytesPerS: [0, Number.MAX_SAFE_INTEGER],
  maxManifestBytes: [1, 1024 * 1024 * 1024],
  maxArtifactBytes: [0, Number.MAX_SAFE_INTEGER],
  maxArtifacts: [0, 100_000],
  connectTimeoutMs: [1, 3_600_000],
  maxFutureSkewMs: [0, 7 * 24 * 3_600_000],
  retryBaseDelayMs: [0, 3_600_000],
  retryMaxDelayMs: [0, 3_600_000],
  maxRetryAfterMs: [0, 24 * 3_600_000],
  maxRedirects: [0, 20],
};

/**
 * Merges overrides onto the defaults and checks every value is an integer within bounds.
 * Without an explicit `maxManifestBytes`, it is derived from the resolved `maxArtifacts`.
 */
export function resolveLimits(overrides: Partial<Limits> = {}): Limits {
  const merged: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(overrides)) {
    if (!Object.hasOwn(BOUNDS, key)) {
      throw new UpdateError('CONFIG_INVALID', `unknown limit ${key}`);
    }
    if (value !== undefined) merged[key] = value;
  }
  const artifacts = merged['maxArtifacts'];
  if (overrides.maxManifestBytes === undefined && Number.isSafeInteger(artifacts)) {
    merged['maxManifestBytes'] = manifestBytesFor(artifacts ?? 0);
  }
  for (const [key, [min, max]] of Object.entries(BOUNDS)) {
    const value = merged[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new UpdateError('CONFIG_INVALID', `${key} must be an integer from ${min} to ${max}`);
    }
  }
  const cap = merged['maxBytesPerS'] ?? 0;
  if (cap > 0 && (cap < MIN_CAP_BYTES_PER_S || cap < (merged['minBytesPerS'] ?? 0))) {
    // Below minBytesPerS our own transfers would look like a drip feed; below 64 KiB/s one
    // socket read (up to 64 KiB) would pause a transfer for seconds, tripping the idle rule.
    throw new UpdateError(
      'CONFIG_INVALID',
      `maxBytesPerS must be 0 or at least ${MIN_CAP_BYTES_PER_S} and minBytesPerS`,
    );
  }
  return Object.freeze(merged) as unknown as Limits;
}
