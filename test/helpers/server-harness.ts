/**
 * Test helpers for the companion server: an app for inject() tests, a minted machine key, and
 * the CLI spawned as a child process (its first stdout line parsed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildDeps, type BuiltApp } from '#server/compose/app.js';
import type { ServerOptions } from '#server/compose/options.js';
import { serverCliArgv } from './built-clis.js';
import { postJson } from './post-json.js';

/** Builds a silent app on a temporary data dir; call `built.app.close()` when done. */
export async function testApp(
  options: Partial<ServerOptions> = {},
  deps: BuildDeps = {},
): Promise<BuiltApp> {
  return buildApp({ logLevel: 'silent', simulate: false, ...options }, deps);
}

/** Mints a machine key through the public route. */
export async function mintKey(
  app: FastifyInstance,
  subscription: 'active' | 'inactive' = 'active',
): Promise<string> {
  const res = await postJson(app, '/api/demo-key/mint', { subscription });
  const body = res.json<{ machine_key: string }>();
  return body.machine_key;
}

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** A test app and an active machine key in it: `({ built, key } = await appWithKey(...))`. */
export async function appWithKey(
  options: Partial<ServerOptions> = {},
  deps: BuildDeps = {},
): Promise<{ built: BuiltApp; key: string }> {
  const built = await testApp(options, deps);
  return { built, key: await mintKey(built.app) };
}

export interface CliServer {
  readonly child: ChildProcess;
  readonly first: Record<string, unknown> & { url: string; node_pubkey: string };
  /** Lines printed after the first one (pino logs). */
  readonly lines: string[];
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the server CLI (the run's bundle of server/src/cli/main.ts, test/helpers/built-clis.ts)
 * with ARGS and waits (bounded) for its first stdout line.
 */
export function spawnCli(args: readonly string[], timeoutMs = 20_000): Promise<CliServer> {
  return spawnServer(process.execPath, [...serverCliArgv(), ...args], {
    timeoutMs,
  });
}

/**
 * Starts any command that runs the server (the packaged bin, `npm run -s server`, npx) as a
 * harness would, and waits (bounded) for its first stdout line.
 */
export function spawnServer(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliServer> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 10_000) stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no first line within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    const rl = createInterface({ input: child.stdout });
    let first: CliServer['first'] | undefined;
    rl.on('line', (line) => {
      if (first !== undefined) {
        if (lines.length < 10_000) lines.push(line);
        return;
      }
      clearTimeout(timer);
      try {
        first = JSON.parse(line) as CliServer['first'];
      } catch {
        reject(new Error(`first line is not JSON: ${line}`));
        return;
      }
      resolve({
        child,
        first,
        lines,
        stop: (signal = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (first === undefined) reject(new Error(`exited ${code} before its first line: ${stderr}`));
    });
  });
}

/** Runs the CLI to completion (publish, usage errors) and collects its output. */
export function runCli(
  args: readonly string[],
  timeoutMs = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...serverCliArgv(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** True once nothing accepts connections on the URL's port. */
function portClosed(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/**
 * Waits (bounded, polling every 50 ms) until the server at `url` has stopped: its port refuses
 * connections and its data directory is gone. Resolves with what it saw last.
 */
export async function waitStopped(
  url: string,
  dataDir: string,
  timeoutMs = 10_000,
): Promise<{ portClosed: boolean; dataDirGone: boolean }> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const seen = { portClosed: await portClosed(url), dataDirGone: !existsSync(dataDir) };
    if ((seen.portClosed && seen.dataDirGone) || performance.now() > deadline) return seen;
    await sleep(50);
  }
}
