/**
 * A plain static file server on 127.0.0.1 for a `--static-out` tree: GET a path under the
 * root, 404 otherwise, nothing else (no listing, no ranges) — what any web server does at
 * least. Paths leaving the root are refused.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';

export interface StaticFiles {
  readonly baseUrl: string;
  /** Every path requested, in order. */
  readonly requested: string[];
  close(): Promise<void>;
}

export async function serveStaticFiles(root: string): Promise<StaticFiles> {
  const requested: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requested.push(path);
    const file = normalize(join(root, path));
    if (req.method !== 'GET' || !file.startsWith(root + sep)) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (bytes) => res.writeHead(200, { 'content-length': bytes.length }).end(bytes),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requested,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
