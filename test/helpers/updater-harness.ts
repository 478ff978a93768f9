/**
 * Shared plumbing of the updater proof suites: temp dirs under os.tmpdir(), fast limits, the
 * CLI as a child process (exit code + exactly one JSON object on stdout), and refusal checks.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import type { UpdateErrorCode } from '#core/errors.js';
import type { UpdateResult, UpdaterApi } from '#core/updater-api.js';
import { createNodeUpdater, type NodeUpdaterOptions } from '#node/create-updater.js';
import { updaterCliArgv } from './built-clis.js';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const CLI_ENTRY = join(REPO_ROOT, 'src/cli/main.ts');
export { updaterCliArgv };

/** Limits that keep refusals fast: one retry, short backoff, short stall detection. */
export const FAST_LIMITS = {
  retries: 1,
  retryBaseDelayMs: 10,
  retryMaxDelayMs: 50,
  // Long enough that a loaded 2-core CI machine never trips it by accident; the stall tests
  // still end in about 2 s.
  stallTimeoutMs: 2_000,
  connectTimeoutMs: 2_000,
  maxRetryAfterMs: 1_000,
} as const;

/** Creates a temp dir; `cleanup()` removes every dir made through this tracker. */
export function tempDirs(): { make(prefix?: string): Promise<string>; cleanup(): Promise<void> } {
  const made: string[] = [];
  return {
    async make(prefix = 'qa-updater-') {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    async cleanup() {
      await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}

/** Awaits `promise`, expecting it to reject with an UpdateError of `code`; returns the error. */
export async function expectRefusal(
  promise: Promise<unknown>,
  code: UpdateErrorCode,
): Promise<Error & { code: string }> {
  let thrown: unknown;
  try {
    await promise;
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a refusal with ${code}`).toBeInstanceOf(Error);
  expect((thrown as { code?: unknown }).code).toBe(code);
  return thrown as Error & { code: string };
}

export interface CliResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as one JSON object, or undefined when it is not exactly that. */
  readonly json: Record<string, unknown> | undefined;
}

export interface CliTarget {
  readonly baseUrl: string;
  readonly machineKey: string;
  readonly pubkeyHex: string;
  readonly dir: string;
}

/** The common flags for a target; `extra` flags are appended. */
export function cliArgs(command: string, t: CliTarget, extra: readonly string[] = []): string[] {
  return [
    command,
    '--base-url',
    t.baseUrl,
    '--machine-key',
    t.machineKey,
    '--pubkey',
    t.pubkeyHex,
    '--dir',
    t.dir,
    '--json',
    ...extra,
  ];
}

/** Runs the CLI (the run's bundle, test/helpers/built-clis.ts) with a hard timeout. */
export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...updaterCliArgv(), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      resolvePromise({
        exitCode,
        signal,
        stdout,
        stderr: Buffer.concat(err).toString('utf8'),
        json: parseSingleObject(stdout),
      });
    });
  });
}

function parseSingleObject(stdout: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(stdout);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Deterministic pseudo-random bytes (xorshift32), so artifacts differ without a CSPRNG. */
export function bytesOf(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed | 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** What an updater needs to know of the registry it updates from. */
export interface UpdaterServer {
  readonly baseUrl: string;
  readonly machineKey: string;
  readonly pubkeyHex: string;
}

/** Opens an updater on `dir` against `server`, FAST_LIMITS under `overrides.limits`. */
export function openUpdater(
  server: UpdaterServer,
  dir: string,
  overrides: Partial<NodeUpdaterOptions> = {},
): Promise<UpdaterApi> {
  return createNodeUpdater({
    baseUrl: server.baseUrl,
    machineKey: server.machineKey,
    pubkeys: [server.pubkeyHex],
    dir,
    ...overrides,
    limits: { ...FAST_LIMITS, ...overrides.limits },
  });
}

/** One update in its own updater, as one process run would: open, update, close. */
export async function updateOnce(
  server: UpdaterServer,
  dir: string,
  overrides: Partial<NodeUpdaterOptions> = {},
): Promise<UpdateResult> {
  const updater = await openUpdater(server, dir, overrides);
  try {
    return await updater.update();
  } finally {
    await updater.close();
  }
}
