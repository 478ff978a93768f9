/**
 * In-memory ports for the core's unit tests: a hand-driven clock and timers, a scripted
 * fetcher, a LocalStore in a Map, and manifest signing with keys generated per test run.
 */
import { createHash } from 'node:crypto';
import type { AuditRecord } from '#core/install/audit-log.js';
import { UpdateError } from '#core/errors.js';
import type {
  Clock,
  Fetcher,
  FetchInit,
  FetchResponse,
  LocalStore,
  PartialBlob,
  TimerHandle,
  Timers,
} from '#core/ports.js';
import { EMPTY_STATE, type InstalledArtifact, type UpdaterState } from '#core/state.js';
import { isGzipCoding } from '#core/transfer/content-coding.js';
import { parseEndpoint } from '#core/transfer/endpoint.js';
import type { HttpContext } from '#core/transfer/http-get.js';
import { DEFAULT_LIMITS, type Limits } from '#core/limits.js';
import { gunzipBody } from '#node/http/gzip-body.js';
import {
  encodeManifest,
  generateKeyPair,
  pubkeyToHex,
  signEnvelope,
  type Manifest,
} from '#protocol';

export const T0 = Date.parse('2026-01-01T00:00:00Z');

/** A clock and timers moved only by `advance`. */
export class FakeTime implements Clock, Timers {
  private now: number;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  constructor(start = T0) {
    this.now = start;
  }

  nowMs(): number {
    return this.now;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = ++this.seq;
    this.pending.set(id, { at: this.now + delayMs, fn: callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending.delete(handle as number);
  }

  get timerCount(): number {
    return this.pending.size;
  }

  /** Moves time forward, firing due timers in order (bounded: at most 100000 firings). */
  advance(ms: number): void {
    const end = this.now + ms;
    for (let guard = 0; guard < 100_000; guard++) {
      let nextId: number | undefined;
      let nextAt = Number.POSITIVE_INFINITY;
      for (const [id, t] of this.pending) {
        if (t.at <= end && t.at < nextAt) {
          nextAt = t.at;
          nextId = id;
        }
      }
      if (nextId === undefined) break;
      const timer = this.pending.get(nextId);
      this.pending.delete(nextId);
      this.now = nextAt;
      timer?.fn();
    }
    this.now = end;
  }
}

/** Timers that fire on the next macrotask whatever the delay (for loop tests). */
export const immediateTimers: Timers = {
  setTimeout: (fn) => setTimeout(fn, 0),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface ScriptedResponse {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly chunks?: readonly Uint8Array[];
  /** Throw this after the chunks instead of ending cleanly. */
  readonly failAfter?: Error;
}

export interface SeenRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A fetcher answering from a handler; records every request (with the headers the adapter would
 * send). It honours `acceptGzip` as the Node adapter does: `accept-encoding: gzip`, and a gzip
 * answer inflated as it streams (src/node/http/gzip-body.ts), its coded bytes counted as wire bytes.
 */
export class ScriptedFetcher implements Fetcher {
  readonly seen: SeenRequest[] = [];
  discarded = 0;

  constructor(private readonly handler: (req: SeenRequest) => ScriptedResponse) {}

  get(url: string, init: FetchInit): Promise<FetchResponse> {
    const req = {
      url,
      headers: {
        ...init.headers,
        ...(init.acceptGzip === true ? { 'accept-encoding': 'gzip' } : {}),
      },
    };
    this.seen.push(req);
    const r = this.handler(req);
    const headers = r.headers ?? {};
    const chunks = r.chunks ?? [];
    const signal = init.signal;
    async function* body(): AsyncGenerator<Uint8Array> {
      for (const c of chunks) {
        if (signal.aborted) throw new Error('aborted');
        await Promise.resolve();
        yield c;
      }
      if (r.failAfter !== undefined) throw r.failAfter;
    }
    const discard = (): void => {
      this.discarded++;
    };
    const status = r.status ?? 200;
    const header = (name: string): string | undefined => headers[name.toLowerCase()];
    if (init.acceptGzip === true && isGzipCoding(header('content-encoding'))) {
      let wire = 0;
      return Promise.resolve({
        status,
        header,
        body: gunzipBody(body(), url, (count) => (wire += count)),
        inflated: true,
        wireBytes: () => wire,
        discard,
      });
    }
    return Promise.resolve({ status, header, body: body(), discard });
  }
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A LocalStore in memory, with the same refusals as the file store. */
export class MemoryStore implements LocalStore {
  state: UpdaterState = EMPTY_STATE;
  readonly blobs = new Map<string, Uint8Array>();
  readonly partials = new Map<string, { bytes: Uint8Array; validator: string | undefined }>();
  readonly envelopes = new Map<string, Uint8Array>();
  current = new Map<string, Uint8Array>();
  readonly sets = new Map<string, Map<string, Uint8Array>>();
  saves = 0;

  loadState(): Promise<UpdaterState> {
    return Promise.resolve(this.state);
  }

  saveState(state: UpdaterState): Promise<void> {
    this.state = state;
    this.saves++;
    return Promise.resolve();
  }

  hasBlob(sha256: string, size: number): Promise<boolean> {
    return Promise.resolve(this.blobs.get(sha256)?.length === size);
  }

  openPartial(sha256: string, size: number): Promise<PartialBlob> {
    const blobs = this.blobs;
    const partials = this.partials;
    let entry = this.partials.get(sha256) ?? { bytes: new Uint8Array(), validator: undefined };
    if (entry.bytes.length > size) entry = { bytes: new Uint8Array(), validator: undefined };
    this.partials.set(sha256, entry);
    const partial: PartialBlob = {
      get offset() {
        return entry.bytes.length;
      },
      get validator() {
        return entry.validator;
      },
      setValidator(v) {
        entry.validator = v;
        return Promise.resolve();
      },
      write(chunk) {
        if (entry.bytes.length + chunk.length > size) {
          return Promise.reject(new UpdateError('SIZE_MISMATCH', 'past the signed size'));
        }
        entry.bytes = new Uint8Array(Buffer.concat([entry.bytes, chunk]));
        return Promise.resolve();
      },
      reset() {
        entry.bytes = new Uint8Array();
        entry.validator = undefined;
        return Promise.resolve();
      },
      complete() {
        partials.delete(sha256);
        if (entry.bytes.length !== size) {
          return Promise.reject(new UpdateError('SIZE_MISMATCH', 'wrong size'));
        }
        if (sha256Hex(entry.bytes) !== sha256) {
          return Promise.reject(new UpdateError('HASH_MISMATCH', 'wrong digest'));
        }
        blobs.set(sha256, entry.bytes);
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
    return Promise.resolve(partial);
  }

  commitSet(
    set: {
      setId: string;
      dir?: string;
      envelope: Uint8Array;
      artifacts: readonly InstalledArtifact[];
    },
    next: UpdaterState,
  ): Promise<void> {
    const files = new Map<string, Uint8Array>();
    for (const a of set.artifacts) {
      const blob = this.blobs.get(a.sha256);
      if (blob === undefined) return Promise.reject(new UpdateError('IO', 'missing blob'));
      files.set(a.name, blob);
    }
    this.sets.set(set.dir ?? set.setId, files);
    this.envelopes.set(set.setId, set.envelope);
    this.current = new Map(files);
    this.state = next;
    return Promise.resolve();
  }

  switchSet(setId: string, next: UpdaterState): Promise<void> {
    const files = this.sets.get(setId);
    if (files === undefined) return Promise.reject(new UpdateError('STATE_CORRUPT', 'no set'));
    this.current = new Map(files);
    this.state = next;
    return Promise.resolve();
  }

  /** Memory has no mtime: a file counts as intact when its bytes hash to the signed digest. */
  checkInstalled(artifacts: readonly InstalledArtifact[]): Promise<readonly string[]> {
    return Promise.resolve(
      artifacts
        .filter((a) => {
          const bytes = this.current.get(a.name);
          return bytes === undefined || bytes.length !== a.size || sha256Hex(bytes) !== a.sha256;
        })
        .map((a) => a.name),
    );
  }

  loadEnvelope(setId: string): Promise<Uint8Array | undefined> {
    return Promise.resolve(this.envelopes.get(setId));
  }

  saveEnvelope(setId: string, envelope: Uint8Array): Promise<void> {
    this.envelopes.set(setId, envelope);
    return Promise.resolve();
  }

  readonly audit: AuditRecord[] = [];

  appendAudit(record: AuditRecord): Promise<void> {
    this.audit.push(record);
    return Promise.resolve();
  }

  scanInstalled(): Promise<readonly InstalledArtifact[]> {
    return Promise.resolve(
      [...this.current].map(([name, bytes]) => ({
        name,
        size: bytes.length,
        sha256: sha256Hex(bytes),
      })),
    );
  }
}

/** A signing key generated for this test run (never a committed private key). */
export function testKey(): { secretKey: Uint8Array; publicKey: Uint8Array; hex: string } {
  const { secretKey, publicKey } = generateKeyPair();
  return { secretKey, publicKey, hex: pubkeyToHex(publicKey) };
}

export interface ReleaseFile {
  readonly name: string;
  readonly content: Uint8Array;
}

/** Builds a manifest over files, artifact URLs relative to the base. */
export function manifestOf(
  version: string,
  files: readonly ReleaseFile[],
  options: { issuedAtMs?: number; expiresAtMs?: number } = {},
): Manifest {
  const sorted = [...files].sort((a, b) =>
    Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)),
  );
  return {
    registry_version: version,
    issued_at: new Date(options.issuedAtMs ?? T0 - 60_000).toISOString(),
    expires_at: new Date(options.expiresAtMs ?? T0 + 86_400_000).toISOString(),
    artifacts: sorted.map((f) => {
      const sha256 = sha256Hex(f.content);
      return {
        name: f.name,
        size: f.content.length,
        sha256,
        url: `api/updates/artifacts/${sha256}`,
      };
    }),
  };
}

/** The exact envelope bytes the server would send for `manifest`. */
export function envelopeBytes(
  manifest: Manifest,
  key: { secretKey: Uint8Array; publicKey: Uint8Array },
): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify(signEnvelope(encodeManifest(manifest), key.secretKey, key.publicKey)),
  );
}

export const text = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * The core's HTTP context over `fetcher` against `base` (fake time, the test machine key), as
 * the fetch tests build it.
 */
export function httpContextOf<F extends Fetcher>(
  fetcher: F,
  limits: Partial<Limits> = {},
  base = 'http://updates.test/',
): { http: HttpContext; fetcher: F } {
  const time = new FakeTime();
  const http: HttpContext = {
    fetcher,
    clock: time,
    timers: time,
    limits: { ...DEFAULT_LIMITS, ...limits },
    endpoint: parseEndpoint(base, 'mk-secret'),
    userAgent: 'test',
  };
  return { http, fetcher };
}
