/**
 * The updater's own manifest verifiers (src/core/trust/verify.ts), for QA tests that check what the
 * server signed: the exact bytes of GET /api/updates/manifest against the pinned node_pubkey,
 * as its format 1 envelope (`verifyManifest`) or as the whole answer (`verifyAnswer`).
 */
import { DEFAULT_LIMITS } from '../../../src/core/limits.js';
import { UpdateError } from '../../../src/core/errors.js';
import {
  fromProtocolError,
  needsKeyChain,
  parseAnswer,
  pinKeys,
  verifyManifest as verifyWithPins,
  verifyParsedAnswer,
  type VerifiedManifest,
} from '../../../src/core/trust/index.js';
import type { ParsedEnvelope } from '../../../src/protocol/envelope.js';
import { parseKeysAnswer } from '../../../src/protocol/manifest-answer.js';

export type { VerifiedManifest } from '../../../src/core/trust/index.js';

/**
 * What both verifiers return: the verified manifest, whose set id the core calls `setId`,
 * with that id also as `payloadSha256`, the name this package has always returned it under
 * (docs/SERVER.md), so QA scripts that read it keep working.
 */
export type CheckedManifest = VerifiedManifest & { readonly payloadSha256: string };

const checked = (verified: VerifiedManifest): CheckedManifest => ({
  ...verified,
  payloadSha256: verified.setId,
});
export { UpdateError, type UpdateErrorCode } from '../../../src/core/errors.js';

/**
 * Verifies manifest bytes under one or more pinned node public keys (64 lowercase hex each),
 * as the updater does, and returns the parsed manifest. Throws an `UpdateError` whose `code`
 * says why (`SIGNATURE_INVALID`, `UNKNOWN_KEY`, `MANIFEST_MALFORMED`, ...).
 * @example
 *   const res = await fetch(`${server.url}/api/updates/manifest`, { headers: { authorization: `Bearer ${key}` } });
 *   const { manifest } = verifyManifest(new Uint8Array(await res.arrayBuffer()), server.nodePubkey);
 */
export function verifyManifest(
  bytes: Uint8Array,
  nodePubkeys: string | readonly string[],
  options: { readonly maxManifestBytes?: number } = {},
): CheckedManifest {
  const pins = pinKeys(typeof nodePubkeys === 'string' ? [nodePubkeys] : nodePubkeys);
  const max = options.maxManifestBytes ?? DEFAULT_LIMITS.maxManifestBytes;
  return checked(verifyWithPins(bytes, pins, max));
}

/** What `verifyAnswer` may be told beside the bytes and the pinned keys. */
export interface AnswerCheckOptions {
  /** Refuse answers larger than this (default: the updater's limit). */
  readonly maxManifestBytes?: number;
  /** The nonce sent as `?nonce=`: the freshness statement must carry exactly it. */
  readonly nonce?: string;
  /** The clock the expiry is checked against, in ms since the epoch (default: now). */
  readonly nowMs?: number;
  /**
   * The bytes of `GET /api/updates/keys`, when the answer's newest 8 links do not reach back
   * to the pinned key (more than 8 rotations); without it that answer is `KEY_CHAIN_GAP`.
   */
  readonly keyChain?: Uint8Array;
}

/**
 * Verifies a whole answer of `GET /api/updates/manifest` as an updater that pins
 * `nodePubkeys` and has trusted nothing yet (docs/PROTOCOL.md §2.7.5): format 2 (the key chain
 * from the pinned root, the release under its role's threshold, the freshness statement, its
 * expiry and nonce), or a format 1 envelope when the answer is only that. Unlike
 * `verifyManifest`, which reads only the format 1 envelope a server signs while its root key
 * is online, this keeps working after the keys go offline (docs/SERVER.md). Throws an
 * `UpdateError` whose `code` says why (`KEY_CHAIN_GAP`, `THRESHOLD_NOT_MET`,
 * `FRESHNESS_MISMATCH`, `MANIFEST_EXPIRED`, `NONCE_MISMATCH`, ...).
 * @example
 *   const { format, manifest } = verifyAnswer(bytes, server.nodePubkey);
 */
export function verifyAnswer(
  bytes: Uint8Array,
  nodePubkeys: string | readonly string[],
  options: AnswerCheckOptions = {},
): CheckedManifest {
  const pinned = pinKeys(typeof nodePubkeys === 'string' ? [nodePubkeys] : nodePubkeys);
  let chain: readonly ParsedEnvelope[] | undefined;
  if (options.keyChain !== undefined) {
    try {
      chain = parseKeysAnswer(options.keyChain);
    } catch (error) {
      throw fromProtocolError(error);
    }
  }
  const input = {
    pinned,
    trust: null,
    floor: null,
    nowMs: options.nowMs ?? Date.now(),
    maxFutureSkewMs: DEFAULT_LIMITS.maxFutureSkewMs,
    nonce: options.nonce,
    maxManifestBytes: options.maxManifestBytes ?? DEFAULT_LIMITS.maxManifestBytes,
  };
  const answer = parseAnswer(bytes, input.maxManifestBytes);
  if (answer.format === 2 && chain === undefined && needsKeyChain(answer.keys, input)) {
    throw new UpdateError(
      'KEY_CHAIN_GAP',
      "the answer's key links do not reach the pinned key: pass the bytes of GET /api/updates/keys as keyChain",
    );
  }
  return checked(verifyParsedAnswer(answer, bytes, input, chain));
}
