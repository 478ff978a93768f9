/**
 * Releases whose artifacts a static nginx serves (test/helpers/nginx.ts), signed by the hostile
 * server with absolute nginx URLs: the scaffolding of the nginx suites over http and https
 * (test/integration/updater-nginx.test.ts, updater-nginx-tls.test.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { sha256Hex, startHostileServer, type HostileServer } from './hostile-server.js';
import { startNginx, type Nginx, type NginxOptions } from './nginx.js';
import { bytesOf, tempDirs } from './updater-harness.js';

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

/** What an nginx suite's tests share (`nginxSuite`); each field is set before a test runs. */
export interface NginxSuite {
  /** One nginx for the file, serving `root`. */
  readonly nginx: Nginx;
  readonly root: string;
  /** A fresh hostile server (the signed manifests) and DIR for each test. */
  readonly server: HostileServer;
  readonly dir: string;
  /** The file's temporary directories, removed after it. */
  readonly dirs: ReturnType<typeof tempDirs>;
  /** `release(count, bytes, seed)` at the suite's count and size. */
  release(seed: number): Files;
  /** `publishViaNginx` on this suite's root, nginx and server. */
  publish(version: string, files: Files): Promise<void>;
}

/**
 * Registers the hooks of an nginx suite (test/integration/updater-nginx*.test.ts): nginx
 * started once for the file with `options` (https with `tls`), a hostile server and a DIR per
 * test. Call it at the top of the file.
 */
export function nginxSuite(
  shape: { readonly count: number; readonly bytes: number; readonly prefix: string },
  options: NginxOptions = {},
): NginxSuite {
  const dirs = tempDirs();
  let nginx: Nginx | undefined;
  let root = '';
  let server: HostileServer | undefined;
  let dir = '';
  const suite: NginxSuite = {
    get nginx() {
      if (nginx === undefined) throw new Error('nginx is started by the suite (beforeAll)');
      return nginx;
    },
    get root() {
      return root;
    },
    get server() {
      if (server === undefined) throw new Error('the server is started per test (beforeEach)');
      return server;
    },
    get dir() {
      return dir;
    },
    dirs,
    release: (seed) => release(shape.count, shape.bytes, seed),
    publish: (version, files) =>
      publishViaNginx({ root, nginx: suite.nginx, server: suite.server }, version, files),
  };
  beforeAll(async () => {
    root = await dirs.make(`${shape.prefix}-root-`);
    nginx = await startNginx(root, options);
  });
  afterAll(async () => {
    await nginx?.stop();
    await dirs.cleanup();
  });
  beforeEach(async () => {
    server = await startHostileServer();
    dir = await dirs.make(`${shape.prefix}-dir-`);
  });
  afterEach(async () => {
    await server?.close();
  });
  return suite;
}
