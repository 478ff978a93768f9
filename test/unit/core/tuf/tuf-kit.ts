/**
 * Test kit for the TUF client: ed25519 keys generated per run, metadata signed through
 * @tufjs/models (an independent canonical JSON implementation), and in-memory ports.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { Metadata, MetadataKind, Signature } from '@tufjs/models';
import { TufError, type MetadataStore, type TufFetcher } from '#core/tuf/index.js';

export const NOW = Date.parse('2030-01-01T00:00:00Z');
export const DAY = 24 * 3600 * 1000;
export const BASE = 'https://repo.test/metadata/';
export const TARGETS = 'https://repo.test/targets/';

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface TestKey {
  readonly keyid: string;
  readonly json: { keytype: string; scheme: string; keyval: { public: string } };
  readonly privateKey: KeyObject;
}

export function newKey(): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const hex = spki.subarray(spki.length - 32).toString('hex');
  const json = { keytype: 'ed25519', scheme: 'ed25519', keyval: { public: hex } };
  const keyid = createHash('sha256').update(JSON.stringify(json)).digest('hex');
  return { keyid, json, privateKey };
}

const KINDS: Record<string, MetadataKind> = {
  root: MetadataKind.Root,
  timestamp: MetadataKind.Timestamp,
  snapshot: MetadataKind.Snapshot,
  targets: MetadataKind.Targets,
};

/** Signs `signed` (a JSON object with `_type`) with each key; returns the file's bytes. */
export function signed(body: Record<string, unknown>, keys: readonly TestKey[]): Uint8Array {
  const kind = KINDS[String(body['_type'])];
  if (kind === undefined) throw new Error('unknown _type');
  const md = Metadata.fromJSON(
    kind as MetadataKind.Root,
    { signed: body, signatures: [] } as never,
  );
  for (const key of keys) {
    md.sign(
      (data) =>
        new Signature({ keyID: key.keyid, sig: sign(null, data, key.privateKey).toString('hex') }),
    );
  }
  return new TextEncoder().encode(JSON.stringify(md.toJSON()));
}

export function metaOf(bytes: Uint8Array, version: number): Record<string, unknown> {
  return {
    version,
    length: bytes.length,
    hashes: { sha256: createHash('sha256').update(bytes).digest('hex') },
  };
}

export function targetOf(content: string): Record<string, unknown> {
  const bytes = Buffer.from(content);
  return {
    length: bytes.length,
    hashes: { sha256: createHash('sha256').update(bytes).digest('hex') },
  };
}

export class MemoryStore implements MetadataStore {
  readonly files = new Map<string, Uint8Array>();
  read(role: string): Promise<Uint8Array | undefined> {
    return Promise.resolve(this.files.get(role));
  }
  write(role: string, bytes: Uint8Array): Promise<void> {
    this.files.set(role, bytes);
    return Promise.resolve();
  }
  remove(role: string): Promise<void> {
    this.files.delete(role);
    return Promise.resolve();
  }
  retired: Uint8Array | undefined;
  readRetiredKeys(): Promise<Uint8Array | undefined> {
    return Promise.resolve(this.retired);
  }
  writeRetiredKeys(bytes: Uint8Array): Promise<void> {
    this.retired = bytes;
    return Promise.resolve();
  }
  version(role: string): number | undefined {
    const bytes = this.files.get(role);
    if (bytes === undefined) return undefined;
    return (JSON.parse(new TextDecoder().decode(bytes)) as { signed: { version: number } }).signed
      .version;
  }
}

/** Serves `files` by URL; an absent URL is NOT_FOUND; records every request. */
export class MapFetcher implements TufFetcher {
  readonly files = new Map<string, Uint8Array>();
  readonly requests: string[] = [];
  get(url: string, maxBytes: number): Promise<Uint8Array> {
    this.requests.push(url);
    const bytes = this.files.get(url);
    if (bytes === undefined) return Promise.reject(new TufError('NOT_FOUND', `404 ${url}`));
    if (bytes.length > maxBytes) return Promise.reject(new TufError('TOO_LARGE', url));
    return Promise.resolve(bytes);
  }
}
