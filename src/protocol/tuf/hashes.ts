/**
 * Length and hash checks of metadata and target files (TUF spec §5.5.2, §5.6.2, §5.7.3).
 * Every listed hash must be of an algorithm we know and must match: an unknown algorithm is a
 * refusal (UNSUPPORTED_HASH), never a hash silently skipped.
 */
import { createHash } from 'node:crypto';
import type { Hashes } from './metadata.js';
import { TufError } from './tuf-error.js';

const ALGORITHMS: ReadonlySet<string> = new Set(['sha224', 'sha256', 'sha384', 'sha512']);

export function requireLength(bytes: Uint8Array, length: number | undefined, what: string): void {
  if (length !== undefined && bytes.length !== length) {
    throw new TufError('LENGTH_MISMATCH', `${what}: ${bytes.length} bytes, expected ${length}`, {
      what,
      expected: length,
      got: bytes.length,
    });
  }
}

export function requireHashes(bytes: Uint8Array, hashes: Hashes | undefined, what: string): void {
  if (hashes === undefined) return;
  for (const [algorithm, expected] of hashes) {
    if (!ALGORITHMS.has(algorithm)) {
      throw new TufError('UNSUPPORTED_HASH', `${what}: unknown hash algorithm ${algorithm}`, {
        what,
        algorithm,
      });
    }
    const actual = createHash(algorithm).update(bytes).digest('hex');
    if (actual !== expected.toLowerCase()) {
      throw new TufError('HASH_MISMATCH', `${what}: ${algorithm} does not match`, {
        what,
        algorithm,
      });
    }
  }
}

export function requireLengthAndHashes(
  bytes: Uint8Array,
  length: number | undefined,
  hashes: Hashes | undefined,
  what: string,
): void {
  requireLength(bytes, length, what);
  requireHashes(bytes, hashes, what);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
