/**
 * The signed envelope (DSSE v1 shape). The signature covers the pre-authentication encoding of
 * the payload type and the exact payload bytes, so nothing is ever canonicalised.
 * See docs/PROTOCOL.md §2.1.
 */
import { signEd25519 } from './ed25519.js';
import { keyIdOf } from './keys.js';
import { ProtocolError } from './protocol-error.js';

export const MANIFEST_PAYLOAD_TYPE = 'application/vnd.updates.manifest+json';

export interface EnvelopeSignature {
  readonly keyid: string;
  readonly sig: string;
}

/** The envelope as it travels (JSON). */
export interface SignedEnvelope {
  readonly ok: true;
  readonly payloadType: string;
  readonly payload: string;
  readonly signatures: readonly EnvelopeSignature[];
}

/** An envelope after structural parsing: payload and signatures decoded, nothing verified yet. */
export interface ParsedEnvelope {
  readonly payloadType: string;
  readonly payload: Uint8Array;
  readonly signatures: readonly { readonly keyid: string; readonly sig: Uint8Array }[];
}

const encoder = new TextEncoder();
const KEYID_HEX = /^[0-9a-f]{64}$/;
// Strict standard base64 (RFC 4648 §4) with padding; Buffer.from would silently skip junk.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Bounds the work an attacker can cause with a long signature list. */
export const MAX_SIGNATURES = 16;

/**
 * PAE(type, body) = "DSSEv1" SP len(type) SP type SP len(body) SP body, lengths as ASCII
 * decimal byte counts (DSSE protocol.md).
 */
export function pae(payloadType: string, payload: Uint8Array): Uint8Array {
  const type = encoder.encode(payloadType);
  const head = encoder.encode(`DSSEv1 ${type.length} `);
  const mid = encoder.encode(` ${payload.length} `);
  const out = new Uint8Array(head.length + type.length + mid.length + payload.length);
  out.set(head, 0);
  out.set(type, head.length);
  out.set(mid, head.length + type.length);
  out.set(payload, head.length + type.length + mid.length);
  return out;
}

/** Decodes strict base64; anything else is a ProtocolError. */
export function decodeBase64Strict(text: string, what: string): Uint8Array {
  const bytes = Buffer.from(text, 'base64');
  // Canonical (RFC 4648 §3.5) without re-encoding a multi-MiB payload: Buffer.from skips junk
  // and stops at a '=', so a decoded length short of what the text's length promises means a
  // character was not in the alphabet; it also takes base64url's '-' and '_', refused here; and
  // the last quantum, re-encoded, must give back its own text (zero pad bits). The regex stays
  // as a cheap guard for short strings (keys, signatures).
  const n = text.length;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const canonical =
    n % 4 === 0 &&
    bytes.length === (n / 4) * 3 - pad &&
    (n > 256 || BASE64.test(text)) &&
    !text.includes('-') &&
    !text.includes('_') &&
    (n === 0 || bytes.subarray(bytes.length - (3 - pad)).toString('base64') === text.slice(n - 4));
  if (!canonical) throw new ProtocolError('ENVELOPE_MALFORMED', `${what} is not canonical base64`);
  // A view, not a copy (the payload of a 10,000-artifact answer is megabytes).
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** Signs payload bytes into an envelope with one Ed25519 key. */
export function signEnvelope(
  payload: Uint8Array,
  secretKey: Uint8Array,
  publicKey: Uint8Array,
  payloadType: string = MANIFEST_PAYLOAD_TYPE,
): SignedEnvelope {
  const sig = signEd25519(pae(payloadType, payload), secretKey);
  return {
    ok: true,
    payloadType,
    payload: Buffer.from(payload).toString('base64'),
    signatures: [{ keyid: keyIdOf(publicKey), sig: Buffer.from(sig).toString('base64') }],
  };
}

/**
 * Structural parse of the envelope JSON bytes. Verifies nothing: callers must check a
 * signature over `pae(payloadType, payload)` before they look inside `payload`.
 */
export function parseEnvelope(bytes: Uint8Array): ParsedEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    throw new ProtocolError('ENVELOPE_MALFORMED', 'envelope is not UTF-8 JSON', { cause });
  }
  return envelopeFromJson(json, 'envelope');
}

/**
 * Structural parse of an envelope that is already JSON (an envelope nested in a larger answer,
 * docs/PROTOCOL.md §2.7). `what` names it in messages; `maxSignatures` bounds the work (a key
 * set link carries the signatures of two root roles).
 */
export function envelopeFromJson(
  json: unknown,
  what: string,
  maxSignatures: number = MAX_SIGNATURES,
): ParsedEnvelope {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ProtocolError('ENVELOPE_MALFORMED', `${what} is not a JSON object`);
  }
  const o = json as Record<string, unknown>;
  const { payloadType, payload, signatures } = o;
  if (typeof payloadType !== 'string') {
    throw new ProtocolError('ENVELOPE_MALFORMED', `${what}.payloadType must be a string`);
  }
  if (typeof payload !== 'string') {
    throw new ProtocolError('ENVELOPE_MALFORMED', `${what}.payload must be a base64 string`);
  }
  if (!Array.isArray(signatures) || signatures.length === 0) {
    throw new ProtocolError('ENVELOPE_MALFORMED', `${what}.signatures must be a non-empty array`);
  }
  if (signatures.length > maxSignatures) {
    throw new ProtocolError(
      'ENVELOPE_MALFORMED',
      `${what} has more than ${maxSignatures} signatures`,
    );
  }
  const parsed = signatures.map((s: unknown, i) => {
    const at = `${what}.signatures[${i}]`;
    if (typeof s !== 'object' || s === null) {
      throw new ProtocolError('ENVELOPE_MALFORMED', `${at} is not an object`);
    }
    const { keyid, sig } = s as Record<string, unknown>;
    if (typeof keyid !== 'string' || !KEYID_HEX.test(keyid)) {
      throw new ProtocolError('ENVELOPE_MALFORMED', `${at}.keyid is not 64 hex`);
    }
    if (typeof sig !== 'string') {
      throw new ProtocolError('ENVELOPE_MALFORMED', `${at}.sig is not a string`);
    }
    return { keyid, sig: decodeBase64Strict(sig, `${at}.sig`) };
  });
  return {
    payloadType,
    payload: decodeBase64Strict(payload, `${what}.payload`),
    signatures: parsed,
  };
}
