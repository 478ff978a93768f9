/**
 * The 200 answer of GET /api/updates/manifest (docs/PROTOCOL.md §2.7.6). Format 2 carries the
 * three signed parts in one answer; an answer without `format` is the single-key envelope of
 * §2.1 (format 1). A format 2 answer may also carry a format 1 envelope at the top level, for
 * clients that predate format 2; format 2 clients ignore it.
 *
 *   {"ok": true, "format": 2,
 *    "keys": [<key set envelope>, ...],   newest last, a contiguous part of the chain
 *    "release": <release envelope>,
 *    "freshness": <freshness envelope>}
 */
import { envelopeFromJson, MAX_SIGNATURES, type ParsedEnvelope } from './envelope.js';
import { parseJsonObject, requiredField, type JsonObject } from './json-object.js';
import { MAX_LINK_SIGNATURES } from './key-chain.js';
import { ProtocolError } from './protocol-error.js';
import type { DsseEnvelope } from './role-signatures.js';

export const ANSWER_FORMAT = 2;
/** Hard ceiling on key set links in one answer (GET /api/updates/keys included). */
export const MAX_KEY_LINKS = 1024;

export type ManifestAnswer =
  | { readonly format: 1; readonly envelope: ParsedEnvelope }
  | {
      readonly format: 2;
      readonly keys: readonly ParsedEnvelope[];
      readonly release: ParsedEnvelope;
      readonly freshness: ParsedEnvelope;
    };

function malformed(message: string): never {
  throw new ProtocolError('MANIFEST_MALFORMED', message);
}

function parseLinks(o: JsonObject, where: string): ParsedEnvelope[] {
  const keys = requiredField(o, 'keys', where);
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_KEY_LINKS) {
    malformed(`${where}.keys must hold 1 to ${MAX_KEY_LINKS} key set envelopes`);
  }
  return keys.map((link: unknown, i) => envelopeFromJson(link, `keys[${i}]`, MAX_LINK_SIGNATURES));
}

/**
 * Structural parse of a manifest answer. Verifies nothing: the caller walks the key chain and
 * counts signatures before it looks inside any payload.
 */
export function parseManifestAnswer(bytes: Uint8Array): ManifestAnswer {
  const o = parseJsonObject(bytes, 'manifest answer', 'ENVELOPE_MALFORMED');
  if (!Object.hasOwn(o, 'format')) return { format: 1, envelope: envelopeFromJson(o, 'envelope') };
  if (o.format !== ANSWER_FORMAT)
    malformed(`manifest answer format ${String(o.format)} is unknown`);
  return {
    format: 2,
    keys: parseLinks(o, 'manifest answer'),
    release: envelopeFromJson(
      requiredField(o, 'release', 'manifest answer'),
      'release',
      MAX_SIGNATURES,
    ),
    freshness: envelopeFromJson(
      requiredField(o, 'freshness', 'manifest answer'),
      'freshness',
      MAX_SIGNATURES,
    ),
  };
}

/** Parses the 200 answer of GET /api/updates/keys: `{"ok": true, "keys": [...]}`. */
export function parseKeysAnswer(bytes: Uint8Array): ParsedEnvelope[] {
  return parseLinks(parseJsonObject(bytes, 'keys answer'), 'keys answer');
}

/** The parts a server puts in a format 2 answer. */
export interface AnswerParts {
  readonly keys: readonly DsseEnvelope[];
  readonly release: DsseEnvelope;
  /** A format 1 envelope for clients that predate format 2 (§2.7.7). */
  readonly legacy?: DsseEnvelope;
}

/**
 * The answer around its freshness envelope: `head + JSON(freshness) + tail` is the answer.
 * A server re-signs only the freshness part (on its clock, or per nonce), so it keeps these
 * bytes and never re-encodes the rest.
 */
export function answerFrame(parts: AnswerParts): { head: Uint8Array; tail: Uint8Array } {
  const legacy = parts.legacy;
  const fields = {
    ok: true,
    ...(legacy === undefined
      ? {}
      : {
          payloadType: legacy.payloadType,
          payload: legacy.payload,
          signatures: legacy.signatures,
        }),
    format: ANSWER_FORMAT,
    keys: parts.keys.map(dsse),
    release: dsse(parts.release),
  };
  const text = JSON.stringify(fields);
  const encoder = new TextEncoder();
  return { head: encoder.encode(`${text.slice(0, -1)},"freshness":`), tail: encoder.encode('}') };
}

/** The whole answer (tests and the dev tools; the server uses answerFrame). */
export function encodeManifestAnswer(parts: AnswerParts, freshness: DsseEnvelope): Uint8Array {
  const { head, tail } = answerFrame(parts);
  const middle = new TextEncoder().encode(JSON.stringify(dsse(freshness)));
  return Buffer.concat([head, middle, tail]);
}

/** The 200 answer of GET /api/updates/keys. */
export function encodeKeysAnswer(keys: readonly DsseEnvelope[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ ok: true, keys: keys.map(dsse) }));
}

/** Only the three DSSE fields, in their fixed order (a stored envelope may carry `ok`). */
function dsse(envelope: DsseEnvelope): DsseEnvelope {
  return {
    payloadType: envelope.payloadType,
    payload: envelope.payload,
    signatures: envelope.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })),
  };
}
