/**
 * node_pubkey: the 32-byte Ed25519 public key as 64 lowercase hex characters (docs/PROTOCOL.md).
 * A keyid is the hex SHA-256 of the 32 raw key bytes.
 */
import { createHash } from 'node:crypto';
import { PUBLIC_KEY_BYTES } from './ed25519.js';
import { ProtocolError } from './protocol-error.js';

const PUBKEY_HEX = /^[0-9a-f]{64}$/;

/** Parses a pinned node_pubkey. Uppercase, whitespace or a wrong length are refused. */
export function parsePubkeyHex(hex: string): Uint8Array {
  if (!PUBKEY_HEX.test(hex)) {
    throw new ProtocolError('BAD_KEY', 'node_pubkey must be 64 lowercase hex characters');
  }
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export function pubkeyToHex(publicKey: Uint8Array): string {
  if (publicKey.length !== PUBLIC_KEY_BYTES) {
    throw new ProtocolError('BAD_KEY', `a public key has ${PUBLIC_KEY_BYTES} bytes`);
  }
  return Buffer.from(publicKey).toString('hex');
}

/** keyid = lowercase hex SHA-256 of the 32-byte public key. */
export function keyIdOf(publicKey: Uint8Array): string {
  return createHash('sha256').update(publicKey).digest('hex');
}
