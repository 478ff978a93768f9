/**
 * Releases whose artifacts a static nginx serves (test/helpers/nginx.ts), signed by the hostile
 * server with absolute nginx URLs: the scaffolding of the nginx suites over http and https
 * (test/integration/updater-nginx.test.ts, updater-nginx-tls.test.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sha256Hex, type HostileServer } from './hostile-server.js';
import type { Nginx } from './nginx.js';
import { bytesOf } from './updater-harness.js';

export type Files = { name: string; content: Uint8Array }[];

/** `count` artifacts `pkg/part-NN.bin` of `bytes` each, their content drawn from `seed`. */
export function release(count: number, bytes: number, seed: number): Files {
  return Array.from({ length: count }, (_, i) => ({
    name: `pkg/part-${String(i).padStart(2, '0')}.bin`,
    content: bytesOf(bytes, seed + i),
  }));
}

/** Copies a release under nginx's `root` at /<version>/<name> and signs a manifest there. */
export async function publishViaNginx(
  where: { readonly root: string; readonly nginx: Nginx; readonly server: HostileServer },
  version: string,
  files: Files,
): Promise<void> {
  for (const f of files) {
    const path = join(where.root, version, f.name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, f.content);
  }
  await where.server.publish({
    version,
    files,
    urlFor: ({ name }) => `${where.nginx.baseUrl}/${version}/${name}`,
  });
}

/** Name to SHA-256 of a release, as filesOf(snapshotTree(...)) lists an installed tree. */
export function expectedFiles(files: Files): Record<string, string> {
  return Object.fromEntries(files.map((f) => [f.name, sha256Hex(f.content)]));
}
