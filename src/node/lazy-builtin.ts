/**
 * Node built-ins that only some runs need, loaded at their first use. A static import of a
 * built-in loads and evaluates it before the entry point's first line, whether the run uses it
 * or not; a no-op `check` or `update` starts no worker thread, no child process and no V8
 * context, so it no longer pays for `node:worker_threads`, `node:child_process` and `node:vm`
 * (docs/UPDATER.md §3, No-op runs; §7). An `http:` registry loads neither `node:https` nor
 * `node:tls` (RSS and start time, docs/UPDATER.md §10.6), and a run that receives
 * no gzip answer (a 304) no `node:zlib`. `require` is synchronous, so a caller such as a
 * constructor needs no `await`; a built-in is loaded once and then cached by Node.
 */
// Aliased: the CLI bundle's banner declares `createRequire` (scripts/build-cli.mjs).
import { createRequire as requireFrom } from 'node:module';
import type * as ChildProcess from 'node:child_process';
import type * as Https from 'node:https';
import type * as Tls from 'node:tls';
import type * as Vm from 'node:vm';
import type * as WorkerThreads from 'node:worker_threads';
import type * as Zlib from 'node:zlib';

const load = requireFrom(import.meta.url);

/** `node:worker_threads`, loaded at the first call. */
export const workerThreads = (): typeof WorkerThreads =>
  load('node:worker_threads') as typeof WorkerThreads;

/** `node:child_process`, loaded at the first call. */
export const childProcess = (): typeof ChildProcess =>
  load('node:child_process') as typeof ChildProcess;

/** `node:vm`, loaded at the first call. */
export const vm = (): typeof Vm => load('node:vm') as typeof Vm;

/** `node:https`, loaded at the first https request of the node:http path. */
export const https = (): typeof Https => load('node:https') as typeof Https;

/** `node:tls`, loaded at the first pipelined https connection. */
export const tls = (): typeof Tls => load('node:tls') as typeof Tls;

/** `node:zlib`, loaded at the first gzip answer. */
export const zlib = (): typeof Zlib => load('node:zlib') as typeof Zlib;
