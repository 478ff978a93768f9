/**
 * Threshold signatures of one role over a DSSE envelope (docs/PROTOCOL.md §2.7.2): signing
 * with one or more keys, adding a signature to an envelope signed elsewhere (k of n release
 * keys on separate machines), and counting valid signatures by distinct keys of a role, as
 * TUF does (each key counts once, however often it is listed).
 */
import { publicKeyOf, signEd25519, verifyEd25519 } from './ed25519.js';
import { pae, type EnvelopeSignature, type ParsedEnvelope } from './envelope.js';
import type { Role, RoleKey } from './key-set.js';
import { keyIdOf } from './keys.js';
import { TrustError } from './trust-error.js';

/** An envelope nested in an answer or written to a file: DSSE without the answer's `ok`. */
export interface DsseEnvelope {
  readonly payloadType: string;
  readonly payload: string;
  readonly signatures: readonly EnvelopeSignature[];
}

/** Something that signs: a key in memory, or a faster native signer on the server. */
export interface Signer {
  readonly publicKey: Uint8Array;
  readonly sign: (message: Uint8Array) => Uint8Array;
  /** The key's keyid when already known (saves a SHA-256 per signature). */
  readonly keyid?: string;
}

/** A Signer over a 32-byte secret seed (the portable implementation). */
export function seedSigner(secretKey: Uint8Array): Signer {
  return { publicKey: publicKeyOf(secretKey), sign: (m) => signEd25519(m, secretKey) };
}

/** Signs payload bytes under `payloadType` with every signer, in the order given. */
export function signDsse(
  payload: Uint8Array,
  payloadType: string,
  signers: readonly Signer[],
): DsseEnvelope {
  const envelope = {
    payloadType,
    payload: Buffer.from(payload).toString('base64'),
    signatures: [],
  };
  return sign(envelope, pae(payloadType, payload), signers);
}

/**
 * Adds signatures over the envelope's exact payload; a key that already signed is skipped, so
 * signing twice with one key never looks like two keys. Nothing is verified here.
 */
export function addSignatures(envelope: DsseEnvelope, signers: readonly Signer[]): DsseEnvelope {
  const message = pae(envelope.payloadType, Buffer.from(envelope.payload, 'base64'));
  return sign(envelope, message, signers);
}

function sign(envelope: DsseEnvelope, message: Uint8Array, signers: readonly Signer[]) {
  const signatures = [...envelope.signatures];
  for (const signer of signers) {
    const keyid = signer.keyid ?? keyIdOf(signer.publicKey);
    if (signatures.some((s) => s.keyid === keyid)) continue;
    signatures.push({ keyid, sig: Buffer.from(signer.sign(message)).toString('base64') });
  }
  return { ...envelope, signatures };
}

/** What else the verifier knows about keys, to name a refusal precisely. */
export interface KeyContext {
  /** Keys of the same key set in other roles, by keyid -> role name. */
  readonly otherRoles?: ReadonlyMap<string, string>;
  /** Keyids that a newer key set retired. */
  readonly retired?: ReadonlySet<string>;
  /**
   * Keyids whose signature over this same envelope already verified (a key set link is
   * checked under two root roles that often share keys): counted without a second check,
   * and the keys verified here are added.
   */
  readonly verified?: Set<string>;
}

/**
 * Counts valid signatures over PAE(payloadType, payload) by distinct keys of `role` and
 * returns their keyids once `role.threshold` of them verified (strict RFC 8032). Then the
 * signed payloadType must be `payloadType`. Refusals, in this order: SIGNATURE_INVALID (a
 * signature under a key of the role fails), THRESHOLD_NOT_MET (some valid, too few; or only
 * keys of other roles signed), KEY_RETIRED (only retired keys signed), UNKNOWN_KEY.
 */
export function verifyRole(
  envelope: ParsedEnvelope,
  role: Role,
  payloadType: string,
  what: string,
  context: KeyContext = {},
): readonly string[] {
  const message = pae(envelope.payloadType, envelope.payload);
  const valid = new Set<string>();
  let failed = false;
  for (const signature of envelope.signatures) {
    if (valid.has(signature.keyid)) continue;
    const key: RoleKey | undefined = role.keys.find((k) => k.keyid === signature.keyid);
    if (key === undefined) continue;
    if (
      context.verified?.has(key.keyid) === true ||
      verifyEd25519(signature.sig, message, key.publicKey)
    ) {
      valid.add(key.keyid);
      context.verified?.add(key.keyid);
      if (valid.size >= role.threshold) break;
    } else {
      failed = true;
    }
  }
  if (valid.size < role.threshold) throw refusal(envelope, role, what, valid.size, failed, context);
  // The type is inside the signed PAE, so it is checked after the signatures, before parsing.
  if (envelope.payloadType !== payloadType) {
    throw new TrustError('WRONG_PAYLOAD_TYPE', `${what} is signed as ${envelope.payloadType}`);
  }
  return [...valid];
}

function refusal(
  envelope: ParsedEnvelope,
  role: Role,
  what: string,
  count: number,
  failed: boolean,
  context: KeyContext,
): TrustError {
  const need = `${role.threshold} of ${role.keys.length}`;
  if (failed) {
    return new TrustError('SIGNATURE_INVALID', `${what}: a signature does not verify (${need})`);
  }
  if (count > 0) {
    return new TrustError(
      'THRESHOLD_NOT_MET',
      `${what}: ${count} valid signatures, ${need} needed`,
    );
  }
  const ids = envelope.signatures.map((s) => s.keyid);
  const other = ids.map((id) => context.otherRoles?.get(id)).find((r) => r !== undefined);
  if (other !== undefined) {
    return new TrustError(
      'THRESHOLD_NOT_MET',
      `${what}: signed by a ${other} key only, ${need} needed`,
    );
  }
  if (ids.some((id) => context.retired?.has(id) === true)) {
    return new TrustError('KEY_RETIRED', `${what}: signed only by retired keys`);
  }
  return new TrustError('UNKNOWN_KEY', `${what}: no signature by a known key`);
}
