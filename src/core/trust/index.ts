/** The trust group's only door: what the rest of the updater uses of it. */
export type { AnswerCache, CachedAnswer } from './answer-cache.js';
export { fetchKeyChain } from './fetch-keys.js';
export { fetchManifest, type ManifestOverlap } from './fetch-manifest.js';
export { alreadyRecorded, checkPolicy, recordAcceptance } from './policy.js';
export { verifyInstalled } from './verify-installed.js';
export {
  fromProtocolError,
  needsKeyChain,
  parseAnswer,
  pinKeys,
  prepareKeys,
  trustInputOf,
  verifyManifest,
  verifyParsedAnswer,
} from './verify.js';
export type { AnswerInput, PinnedKey, VerifiedManifest } from './verify.js';
export { fromTufError } from './tuf-errors.js';
export { runTufFetcher } from './tuf-fetcher.js';
export { tufFloor } from './tuf-floor.js';
export { registryVersionOf, verifiedFromTargets, type TufManifestInput } from './tuf-manifest.js';
