/**
 * A hostile update server for the adversarial suite: a node:http server on 127.0.0.1:0 that
 * signs manifests with keys generated at runtime and serves envelopes and artifacts, honestly
 * or with a configured attack. It counts the bytes it writes per artifact and records every
 * Range / If-Range header, so tests can prove what the client fetched.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  encodeManifest,
  errorBody,
  generateKeyPair,
  keyIdOf,
  pubkeyToHex,
  signEnvelope,
  type Manifest,
  type ManifestArtifact,
  type SignedEnvelope,
} from '#protocol';
import { serveArtifact, type ArtifactAttack, type Blob } from './hostile-artifacts.js';

export type { ArtifactAttack } from './hostile-artifacts.js';

/** Attacks on the manifest response (docs: TUF attack names in comments). */
export type ManifestAttack =
  | 'wrong-key' // signed by a rogue key, keyid claims the pinned key
  | 'bad-signature' // one bit of the signature flipped
  | 'tampered-payload' // an artifact digest swapped after signing
  | 'unpinned-keyid' // signed by a rogue key under its own keyid
  | 'wrong-payload-type' // a valid signature over another payload type
  | 'malformed-envelope' // not JSON
  | 'endless' // an endless manifest stream (bounded by ENDLESS_LIMIT_BYTES)
  | 'unauthorized' // 401 INVALID_MACHINE_KEY
  | 'subscription-inactive' // 403 SUBSCRIPTION_INACTIVE
  | 'unavailable'; // 503 with Retry-After

/** A file of a release: bytes in memory, or a file on disk (for large benchmarks). */
export type FileContent = Uint8Array | { readonly path: string };

export interface Release {
  readonly version: string;
  readonly files: readonly { readonly name: string; readonly content: FileContent }[];
  /** Defaults: issued one minute ago, expires in one day (real time). */
  readonly issuedAtMs?: number;
  readonly expiresAtMs?: number;
  /** Artifact URL; default `artifacts/<sha256>/<name>` relative to the base URL. */
  readonly urlFor?: (artifact: { name: string; sha256: string }) => string;
  /** Last edit of the manifest before it is signed (unsafe names, bad digests, ...). */
  readonly edit?: (manifest: Manifest) => Manifest;
}

export interface ArtifactRequest {
  readonly name: string;
  readonly range: string | undefined;
  readonly ifRange: string | undefined;
  readonly authorization: string | undefined;
}

/** Bounds the endless manifest so a broken client cannot make the harness run forever. */
export const ENDLESS_LIMIT_BYTES = 64 * 1024 * 1024;
const ENDLESS_CHUNK = Buffer.alloc(64 * 1024, 0x20);
const RETRY_AFTER_S = 7;

export interface HostileServer {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  readonly baseUrl: string;
  /** The machine key the server accepts. */
  readonly machineKey: string;
  /** The public key a client must pin (64 lowercase hex). */
  readonly pubkeyHex: string;
  /** Signs and serves a release; returns the signed manifest. */
  publish(release: Release): Promise<Manifest>;
  /** The envelope currently served (honest form). */
  envelope(): SignedEnvelope;
  setManifestAttack(attack: ManifestAttack | undefined): void;
  /** An attack on one artifact name, or on every artifact with '*'. */
  setArtifactAttack(name: string, attack: ArtifactAttack | undefined): void;
  /** Bytes written to clients for `name`, or for all artifacts. */
  bytesServed(name?: string): number;
  /** Bytes written for the manifest endpoint. */
  manifestBytesServed(): number;
  readonly artifactRequests: readonly ArtifactRequest[];
  /** Authorization header of each manifest request (undefined when none was sent). */
  readonly manifestAuthorizations: readonly (string | undefined)[];
  /** Answers the manifest endpoint with a 302 to `location` (undefined: no redirect). */
  setManifestRedirect(location: string | undefined): void;
  resetCounters(): void;
  close(): Promise<void>;
}

/** Starts a hostile server on 127.0.0.1 with a fresh signing key. */
export async function startHostileServer(machineKey = 'mk_test_hostile'): Promise<HostileServer> {
  const pinned = generateKeyPair();
  const rogue = generateKeyPair();
  const blobs = new Map<string, Blob>();
  const served = new Map<string, number>();
  const requests: ArtifactRequest[] = [];
  const artifactAttacks = new Map<string, ArtifactAttack>();
  let manifestAttack: ManifestAttack | undefined;
  let current: { manifest: Manifest; payload: Uint8Array; envelope: SignedEnvelope } | undefined;
  let manifestServed = 0;
  let manifestRedirect: string | undefined;
  const manifestAuthorizations: (string | undefined)[] = [];

  const countFor = (name: string) => (n: number) => {
    served.set(name, (served.get(name) ?? 0) + n);
  };

  function manifestBody(): { status: number; body: string; headers?: Record<string, string> } {
    if (current === undefined) return { status: 404, body: json(errorBody('NO_RELEASE', 'none')) };
    const { manifest, payload, envelope } = current;
    switch (manifestAttack) {
      case undefined:
        return { status: 200, body: json(envelope) };
      case 'wrong-key': {
        const e = signEnvelope(payload, rogue.secretKey, rogue.publicKey);
        const sigs = e.signatures.map((s) => ({ ...s, keyid: keyIdOf(pinned.publicKey) }));
        return { status: 200, body: json({ ...e, signatures: sigs }) };
      }
      case 'bad-signature': {
        const sig = Buffer.from(envelope.signatures[0]?.sig ?? '', 'base64');
        sig[10] = (sig[10] ?? 0) ^ 0x01;
        const sigs = [{ keyid: keyIdOf(pinned.publicKey), sig: sig.toString('base64') }];
        return { status: 200, body: json({ ...envelope, signatures: sigs }) };
      }
      case 'tampered-payload': {
        // The attacker points the first artifact at its own bytes and keeps the old signature.
        const evil = manifest.artifacts.map((a, i) =>
          i === 0 ? { ...a, sha256: sha256Hex(Buffer.from('evil')), size: 4 } : a,
        );
        const tampered = Buffer.from(encodeManifest({ ...manifest, artifacts: evil }));
        return { status: 200, body: json({ ...envelope, payload: tampered.toString('base64') }) };
      }
      case 'unpinned-keyid':
        return { status: 200, body: json(signEnvelope(payload, rogue.secretKey, rogue.publicKey)) };
      case 'wrong-payload-type': {
        const e = signEnvelope(payload, pinned.secretKey, pinned.publicKey, 'application/json');
        return { status: 200, body: json(e) };
      }
      case 'malformed-envelope':
        return { status: 200, body: '{"ok": true, "payloadType": ' };
      case 'unauthorized':
        return { status: 401, body: json(errorBody('INVALID_MACHINE_KEY', 'unknown key')) };
      case 'subscription-inactive':
        return { status: 403, body: json(errorBody('SUBSCRIPTION_INACTIVE', 'inactive')) };
      case 'unavailable':
        return {
          status: 503,
          body: json(errorBody('UNAVAILABLE', 'try later')),
          headers: { 'retry-after': String(RETRY_AFTER_S) },
        };
      case 'endless':
        return { status: 200, body: '' };
    }
  }

  function onManifest(req: IncomingMessage, res: ServerResponse): void {
    const auth = req.headers.authorization;
    manifestAuthorizations.push(auth);
    if (manifestRedirect !== undefined) {
      res.writeHead(302, { location: manifestRedirect, 'content-length': 0 });
      res.end();
      return;
    }
    if (auth === undefined) {
      send(res, 401, json(errorBody('MISSING_MACHINE_KEY', 'machine key required')));
      return;
    }
    if (auth !== `Bearer ${machineKey}`) {
      send(res, 401, json(errorBody('INVALID_MACHINE_KEY', 'unknown machine key')));
      return;
    }
    if (manifestAttack === 'endless') {
      streamEndless(res, (n) => (manifestServed += n));
      return;
    }
    const { status, body, headers } = manifestBody();
    manifestServed += Buffer.byteLength(body);
    send(res, status, body, headers);
  }

  function onArtifact(req: IncomingMessage, res: ServerResponse, path: string): void {
    const match = /^\/artifacts\/([0-9a-f]{64})\/(.+)$/.exec(path);
    const blob = match === null ? undefined : blobs.get(match[1] ?? '');
    const name = decodeURIComponent(match?.[2] ?? '');
    requests.push({
      name,
      range: req.headers.range,
      ifRange: header(req, 'if-range'),
      authorization: req.headers.authorization,
    });
    if (blob === undefined) {
      send(res, 404, json(errorBody('NOT_FOUND', 'no such artifact')));
      return;
    }
    const key = artifactAttacks.has(name) ? name : '*';
    let attack = artifactAttacks.get(key);
    if (attack?.kind === 'drop' && attack.times !== undefined) {
      // A bounded number of drops, then honest service (so a resume can succeed).
      if (attack.times <= 0) attack = attack.then;
      else artifactAttacks.set(key, { ...attack, times: attack.times - 1 });
    }
    serveArtifact(req, res, blob, attack, countFor(name));
  }

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') send(res, 405, json(errorBody('M', 'GET')));
    else if (path === '/api/updates/manifest') onManifest(req, res);
    else if (path.startsWith('/artifacts/')) onArtifact(req, res, path);
    else send(res, 404, json(errorBody('NOT_FOUND', 'no route')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    machineKey,
    pubkeyHex: pubkeyToHex(pinned.publicKey),
    async publish(release) {
      const now = Date.now();
      const artifacts: ManifestArtifact[] = [];
      for (const file of release.files) {
        const blob = await toBlob(file.content);
        blobs.set(blob.sha256, blob);
        const url =
          release.urlFor?.({ name: file.name, sha256: blob.sha256 }) ??
          `artifacts/${blob.sha256}/${file.name.split('/').map(encodeURIComponent).join('/')}`;
        artifacts.push({ name: file.name, size: blob.size, sha256: blob.sha256, url });
      }
      artifacts.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
      const draft: Manifest = {
        registry_version: release.version,
        issued_at: new Date(release.issuedAtMs ?? now - 60_000).toISOString(),
        expires_at: new Date(release.expiresAtMs ?? now + 86_400_000).toISOString(),
        artifacts,
      };
      const manifest = release.edit?.(draft) ?? draft;
      const payload = encodeManifest(manifest);
      current = {
        manifest,
        payload,
        envelope: signEnvelope(payload, pinned.secretKey, pinned.publicKey),
      };
      return manifest;
    },
    envelope() {
      if (current === undefined) throw new Error('nothing published');
      return current.envelope;
    },
    setManifestAttack(attack) {
      manifestAttack = attack;
    },
    setArtifactAttack(name, attack) {
      if (attack === undefined) artifactAttacks.delete(name);
      else artifactAttacks.set(name, attack);
    },
    bytesServed(name) {
      if (name !== undefined) return served.get(name) ?? 0;
      let total = 0;
      for (const n of served.values()) total += n;
      return total;
    },
    manifestBytesServed: () => manifestServed,
    artifactRequests: requests,
    manifestAuthorizations,
    setManifestRedirect(location) {
      manifestRedirect = location;
    },
    resetCounters() {
      served.clear();
      requests.length = 0;
      manifestAuthorizations.length = 0;
      manifestServed = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** An unterminated JSON string that never ends (bounded here): only a size limit can stop it. */
function streamEndless(res: ServerResponse, count: (n: number) => void): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"ok": true, "payload": "');
  let sent = 0;
  const pump = (): void => {
    while (sent < ENDLESS_LIMIT_BYTES && !res.destroyed) {
      sent += ENDLESS_CHUNK.length;
      count(ENDLESS_CHUNK.length);
      if (!res.write(ENDLESS_CHUNK)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function toBlob(content: FileContent): Promise<Blob> {
  if (content instanceof Uint8Array) {
    return { sha256: sha256Hex(content), size: content.length, bytes: content };
  }
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(content.path)) hash.update(chunk as Buffer);
  const { size } = await stat(content.path);
  return { sha256: hash.digest('hex'), size, path: content.path };
}
