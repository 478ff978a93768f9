/**
 * A hostile format 2 update server (docs/PROTOCOL.md §2.7) for the trust suite: node:http on
 * 127.0.0.1:0 serving GET /api/updates/manifest (with `?nonce=`), GET /api/updates/keys and
 * artifacts. Its key chain, releases and freshness statements are made with trust-kit.ts keys
 * generated at run time. Honest by default: every manifest answer carries the newest 8 links,
 * the current release and a statement signed now (the server's clock) with the current
 * sequence and the request's nonce. A test swaps in an attack that builds the answer from the
 * honest parts. The clock is real time plus `offsetMs`, which a test moves for both sides.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  encodeKeysAnswer,
  errorBody,
  type DsseEnvelope,
  type ManifestArtifact,
  type Signer,
} from '#protocol';
import { serveArtifact, type Blob } from './hostile-artifacts.js';
import { sha256Hex } from './hostile-server.js';
import { answerOf, signFreshness, signRelease, statementFor, TestChain } from './trust-kit.js';

/** The honest parts of one answer. */
export interface TrustParts {
  readonly keys: readonly DsseEnvelope[];
  readonly release: DsseEnvelope;
  readonly freshness: DsseEnvelope;
}

/** An attack on the manifest answer: the body to send, built from the honest parts. */
export type AnswerAttack = (honest: TrustParts, nonce: string | undefined) => Uint8Array | string;

export interface StatementOptions {
  readonly release?: DsseEnvelope;
  readonly keysVersion?: number;
  readonly sequence?: number;
  readonly issuedAtMs?: number;
  readonly lifetimeMs?: number;
  readonly nonce?: string;
  readonly signers?: readonly Signer[];
}

export interface HostileTrustServer {
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  readonly machineKey: string;
  /** The key a client pins: the root of key set 1. */
  readonly pubkeyHex: string;
  readonly chain: TestChain;
  /** Milliseconds the server's clock (and a test's client clock) is ahead of real time. */
  offsetMs: number;
  now(): number;
  /** The current freshness sequence; `publish` and `resign` add one. */
  readonly sequence: number;
  /** Lifetime of honest statements (default one day). */
  lifetimeMs: number;
  /** Signs and serves a release (default signers: the threshold of the current release keys). */
  publish(
    version: string,
    files: readonly { readonly name: string; readonly content: Uint8Array }[],
    signers?: readonly Signer[],
  ): DsseEnvelope;
  /** Serves this release envelope as the current one (no new sequence). */
  serveRelease(release: DsseEnvelope): void;
  readonly release: DsseEnvelope;
  /** A new freshness sequence, as the real server's re-sign. */
  resign(): void;
  /** A statement signed by the current freshness keys unless `signers` says otherwise. */
  statement(options?: StatementOptions): DsseEnvelope;
  /** The honest answer parts for a request with `nonce`. */
  honest(nonce?: string): TrustParts;
  /** Rotates the key set (trust-kit `TestChain.rotate`); `signers` default: both roots. */
  rotate(
    change: Parameters<TestChain['rotate']>[0],
    signers?: readonly Signer[],
  ): ReturnType<TestChain['rotate']>;
  /** An attack on the manifest answer (undefined: honest). */
  setAttack(attack: AnswerAttack | undefined): void;
  /** The links GET /api/updates/keys serves (undefined: the whole chain, honestly). */
  setKeysAnswer(links: readonly DsseEnvelope[] | undefined): void;
  /** The nonce of each manifest request (undefined when none was sent). */
  readonly nonces: readonly (string | undefined)[];
  readonly keysRequests: number;
  bytesServed(): number;
  resetCounters(): void;
  close(): Promise<void>;
}

/** How many links an honest answer carries (docs/PROTOCOL.md §2.7.6). */
export const ANSWER_LINKS = 8;
const DAY_MS = 86_400_000;

export async function startHostileTrustServer(
  machineKey = 'mk_test_trust',
  chain = new TestChain(),
): Promise<HostileTrustServer> {
  const blobs = new Map<string, Blob>();
  const nonces: (string | undefined)[] = [];
  let keysRequests = 0;
  let served = 0;
  let attack: AnswerAttack | undefined;
  let keysAnswer: readonly DsseEnvelope[] | undefined;
  let sequence = 1;
  let release: DsseEnvelope = signRelease(
    { registry_version: '0.0.0', artifacts: [] },
    chain.current.release.slice(0, chain.current.releaseThreshold),
  );

  let offsetMs = 0;
  let lifetimeMs = DAY_MS;
  const now = (): number => Date.now() + offsetMs;
  const statement = (options: StatementOptions = {}): DsseEnvelope => {
    const ks = chain.current;
    return signFreshness(
      statementFor(
        options.release ?? release,
        options.keysVersion ?? ks.version,
        options.sequence ?? sequence,
        options.issuedAtMs ?? now(),
        options.lifetimeMs ?? lifetimeMs,
        options.nonce,
      ),
      options.signers ?? ks.freshness.slice(0, ks.freshnessThreshold),
    );
  };
  const honest = (nonce?: string): TrustParts => ({
    keys: chain.links.slice(-ANSWER_LINKS),
    release,
    freshness: statement(nonce === undefined ? {} : { nonce }),
  });

  function onManifest(req: IncomingMessage, res: ServerResponse): void {
    if (req.headers.authorization !== `Bearer ${machineKey}`) {
      send(res, 401, JSON.stringify(errorBody('INVALID_MACHINE_KEY', 'unknown machine key')));
      return;
    }
    const nonce = new URL(req.url ?? '/', 'http://x').searchParams.get('nonce') ?? undefined;
    nonces.push(nonce);
    const parts = honest(nonce);
    const body =
      attack === undefined
        ? answerOf(parts.keys, parts.release, parts.freshness)
        : attack(parts, nonce);
    send(res, 200, body);
  }

  function onKeys(req: IncomingMessage, res: ServerResponse): void {
    keysRequests++;
    if (req.headers.authorization !== `Bearer ${machineKey}`) {
      send(res, 401, JSON.stringify(errorBody('INVALID_MACHINE_KEY', 'unknown machine key')));
      return;
    }
    send(res, 200, encodeKeysAnswer(keysAnswer ?? chain.links));
  }

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const blob = blobs.get(/^\/artifacts\/([0-9a-f]{64})\//.exec(path)?.[1] ?? '');
    if (path === '/api/updates/manifest') onManifest(req, res);
    else if (path === '/api/updates/keys') onKeys(req, res);
    else if (blob !== undefined) serveArtifact(req, res, blob, undefined, (n) => (served += n));
    else send(res, 404, JSON.stringify(errorBody('NOT_FOUND', 'no route')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    machineKey,
    pubkeyHex: chain.pinned.hex,
    chain,
    get offsetMs() {
      return offsetMs;
    },
    set offsetMs(ms: number) {
      offsetMs = ms;
    },
    get lifetimeMs() {
      return lifetimeMs;
    },
    set lifetimeMs(ms: number) {
      lifetimeMs = ms;
    },
    now,
    get sequence() {
      return sequence;
    },
    get release() {
      return release;
    },
    nonces,
    get keysRequests() {
      return keysRequests;
    },
    statement,
    honest,
    publish(version, files, signers) {
      const artifacts: ManifestArtifact[] = files
        .map((f) => {
          const sha256 = sha256Hex(f.content);
          blobs.set(sha256, { sha256, size: f.content.length, bytes: f.content });
          const url = `artifacts/${sha256}/${f.name.split('/').map(encodeURIComponent).join('/')}`;
          return { name: f.name, size: f.content.length, sha256, url };
        })
        .sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
      const ks = chain.current;
      release = signRelease(
        { registry_version: version, artifacts },
        signers ?? ks.release.slice(0, ks.releaseThreshold),
      );
      sequence++;
      return release;
    },
    serveRelease(next) {
      release = next;
    },
    resign() {
      sequence++;
    },
    rotate: (change, signers) => chain.rotate(change, signers),
    setAttack(next) {
      attack = next;
    },
    setKeysAnswer(links) {
      keysAnswer = links;
    },
    bytesServed: () => served,
    resetCounters() {
      served = 0;
      nonces.length = 0;
      keysRequests = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, status: number, body: Uint8Array | string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
