/**
 * The door of src/protocol/tuf: TUF 1.0 metadata parsing, canonical JSON and signature checks.
 * Nothing outside this folder imports its other files.
 */
export { TufError, isTufError, type TufErrorCode, type TufErrorDetails } from './tuf-error.js';
export {
  parseStrictDocument,
  parseStrictJson,
  isJsonObject,
  MAX_DEPTH,
  type JsonArray,
  type JsonObject,
  type JsonValue,
  type StrictDocument,
} from './strict-json.js';
export { canonicalJson, compareCodePoints } from './canonical-json.js';
export {
  TOP_LEVEL_ROLES,
  type DelegatedRole,
  type Delegations,
  type Envelope,
  type Hashes,
  type MetaFile,
  type RoleKeys,
  type Root,
  type Signature,
  type Signed,
  type SignedCommon,
  type Snapshot,
  type SuccinctRoles,
  type TargetFile,
  type Targets,
  type Timestamp,
  type TopLevelRole,
  type TufKey,
} from './metadata.js';
export { parseEnvelope, type RoleType } from './envelope.js';
export { isSupportedKey, verifySignature } from './key-verify.js';
export { countValidSignatures, requireThreshold } from './threshold.js';
export { requireHashes, requireLength, requireLengthAndHashes, sha256Hex } from './hashes.js';
export { addSignatures, ed25519KeyObject, signMetadata, tufKeyId, type TufSigner } from './sign.js';
export {
  buildRoot,
  buildSnapshot,
  buildTargets,
  buildTimestamp,
  formatExpires,
  SPEC_VERSION,
  type RoleSpec,
  type RootSpec,
  type SnapshotRef,
  type TargetSpec,
} from './build.js';
