/**
 * The node's Ed25519 signing key. It comes from --node-key FILE or lives in the data directory
 * as node-key.json (mode 0600, gitignored); when the file does not exist it is generated there.
 * The secret never leaves this module's closure and is never logged.
 */
import { readRegularFile } from '../../platform/regular-file.js';
import { join } from 'node:path';
import { pubkeyToHex, publicKeyOf, SECRET_KEY_BYTES } from '#protocol';
import type { RandomSource } from '../../platform/random.js';
import { writeJsonAtomic } from '#shared/atomic-file.js';
import { errorClass } from '../../server-error.js';

export const NODE_KEY_FILE = 'node-key.json';

export interface NodeKey {
  readonly publicKey: Uint8Array;
  readonly publicKeyHex: string;
  /** Signs with the secret key; the secret itself is not exposed. */
  readonly secretKey: Uint8Array;
}

/** Thrown when the key file exists but cannot be used (fail closed: never regenerate). */
export const NodeKeyError = errorClass('NodeKeyError', 'NODE_KEY_INVALID');
export type NodeKeyError = InstanceType<typeof NodeKeyError>;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Loads the key from `file` (default `<dataDir>/node-key.json`), generating it when absent.
 * The file holds `{"secret_key_hex": "<64 hex>", "public_key_hex": "<64 hex>"}`; a file with
 * only the 64-hex secret seed is accepted too.
 */
export async function loadNodeKey(
  dataDir: string,
  file: string | undefined,
  random: RandomSource,
): Promise<NodeKey> {
  const path = file ?? join(dataDir, NODE_KEY_FILE);
  let text: string | undefined;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new NodeKeyError(`cannot read the node key file ${path}`, { cause: error });
    }
  }
  if (text === undefined) {
    const secretKey = new Uint8Array(random.bytes(SECRET_KEY_BYTES));
    const key = fromSecret(secretKey);
    await writeJsonAtomic(
      path,
      { secret_key_hex: Buffer.from(secretKey).toString('hex'), public_key_hex: key.publicKeyHex },
      0o600,
    );
    return key;
  }
  return fromSecret(parseKeyFile(text, path));
}

function parseKeyFile(text: string, path: string): Uint8Array {
  const trimmed = text.trim();
  let hex: unknown = trimmed;
  if (trimmed.startsWith('{')) {
    try {
      hex = (JSON.parse(trimmed) as Record<string, unknown>)['secret_key_hex'];
    } catch {
      hex = undefined;
    }
  }
  if (typeof hex !== 'string' || !HEX64.test(hex)) {
    throw new NodeKeyError(`${path} does not hold a 64-hex Ed25519 secret key`);
  }
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

function fromSecret(secretKey: Uint8Array): NodeKey {
  const publicKey = publicKeyOf(secretKey);
  return { secretKey, publicKey, publicKeyHex: pubkeyToHex(publicKey) };
}
