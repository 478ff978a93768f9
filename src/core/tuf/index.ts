/**
 * The door of src/core/tuf: the TUF 1.0 client workflow (TUF spec §5) over injected ports.
 */
export { TufUpdater, verifyTarget, type TufUpdaterOptions } from './updater.js';
export { TrustedMetadataSet, type TimestampUpdate } from './trusted-set.js';
export { DEFAULT_TUF_CONFIG, tufConfig, type TufClientConfig } from './config.js';
export type { MetadataStore, TufClock, TufFetcher } from './ports.js';
export {
  walkRelease,
  type ReleaseLimits,
  type ReleaseRole,
  type RoleLoader,
  type TrustedRelease,
} from './release-walk.js';
export {
  delegatedRoleKeys,
  requireSignedByDelegations,
  isSuccinctRoleName,
  matchesPathPattern,
  rolesForTarget,
  succinctRoleFor,
  type DelegationStep,
} from './delegation-match.js';
export { metadataFileName, quoteSegment, targetFilePath } from './role-names.js';
export { TufError, isTufError, type TufErrorCode } from '#protocol/tuf/index.js';
export {
  BundleFetcher,
  DEFAULT_MAX_BUNDLE_BYTES,
  parseBundle,
  type BundleFetcherOptions,
} from './bundle-fetcher.js';
