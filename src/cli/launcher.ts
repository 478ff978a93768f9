/**
 * What users run (`updater.cjs`, built by scripts/build-cli.mjs as CommonJS beside the bundle):
 * the steps that must come before the ES module bundle loads, then the bundle.
 *
 * 1. libuv's thread pool is sized: it runs every file call, fsync included, and has 4 threads
 *    unless UV_THREADPOOL_SIZE says otherwise when it starts, which node does while it loads an
 *    ES module, before the module's first line runs. 16 threads let a pull of many small
 *    artifacts keep downloading while the fsyncs wait on the disk (docs/UPDATER.md §8, Many
 *    small artifacts). A value the user set wins.
 * 2. The registry's TCP connection is opened (early-connect.ts), so its handshake overlaps the
 *    bundle's load (docs/UPDATER.md §11.2). It can only help: any failure of it is ignored and
 *    the run connects by itself.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openEarlyConnection } from './early-connect.js';

/** Set by scripts/build-cli.mjs: the pool's size, and the bundle's file name beside this one. */
declare const CLI_THREADPOOL_SIZE: number;
declare const CLI_BUNDLE: string;

if (process.env['UV_THREADPOOL_SIZE'] === undefined) {
  process.env['UV_THREADPOOL_SIZE'] = String(CLI_THREADPOOL_SIZE);
}
try {
  openEarlyConnection(process.argv.slice(2), process.env);
} catch {
  // Only a head start: the run opens its own connection.
}
import(pathToFileURL(join(__dirname, CLI_BUNDLE)).href).catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 70;
});
