/**
 * A tiny honest update registry on loopback (node:http) for the node and CLI unit tests:
 * serves a signed manifest at api/updates/manifest (bearer "mk") and artifacts by digest,
 * honouring Range. Keys are generated per run.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { envelopeBytes, manifestOf, sha256Hex, testKey, type ReleaseFile } from './fakes.js';

export interface LocalRegistry {
  readonly baseUrl: string;
  readonly pubkeyHex: string;
  readonly machineKey: string;
  publish(version: string, files: readonly ReleaseFile[], options?: { expiresAtMs?: number }): void;
  /** Requests seen, by path. */
  readonly requests: string[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Optional hook to answer a request differently (return true when handled). */
  hook: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  close(): Promise<void>;
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const key = testKey();
  const blobs = new Map<string, Uint8Array>();
  let envelope: Uint8Array = new Uint8Array();
  const requests: string[] = [];
  const registry: { hook: LocalRegistry['hook'] } = { hook: undefined };
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (registry.hook?.(req, res) === true) return;
    if (req.headers.authorization !== 'Bearer mk') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"ok":false,"error":"bad key","code":"INVALID_MACHINE_KEY"}');
      return;
    }
    if (req.url === '/api/updates/manifest') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': envelope.length });
      res.end(envelope);
      return;
    }
    const blob = blobs.get((req.url ?? '').split('/').pop() ?? '');
    if (blob === undefined) {
      res.writeHead(404);
      res.end();
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range === null ? 0 : Number(range[1]);
    if (range !== null && start < blob.length) {
      res.writeHead(206, {
        'content-range': `bytes ${start}-${blob.length - 1}/${blob.length}`,
        'content-length': blob.length - start,
        etag: `"${sha256Hex(blob).slice(0, 16)}"`,
      });
      res.end(blob.subarray(start));
      return;
    }
    res.writeHead(200, {
      'content-length': blob.length,
      etag: `"${sha256Hex(blob).slice(0, 16)}"`,
    });
    res.end(blob);
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pubkeyHex: key.hex,
    machineKey: 'mk',
    requests,
    get connections() {
      return connections;
    },
    get hook() {
      return registry.hook;
    },
    set hook(h) {
      registry.hook = h;
    },
    publish(version, files, options = {}) {
      for (const f of files) blobs.set(sha256Hex(f.content), f.content);
      const now = Date.now();
      envelope = envelopeBytes(
        manifestOf(version, files, {
          issuedAtMs: now - 1000,
          expiresAtMs: options.expiresAtMs ?? now + 3_600_000,
        }),
        key,
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
