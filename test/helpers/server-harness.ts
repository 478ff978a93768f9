/**
 * Test helpers for the companion server: an app for inject() tests, a minted machine key, and
 * the CLI spawned as a child process (its first stdout line parsed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildDeps, type BuiltApp } from '../../server/src/app.js';
import type { ServerOptions } from '../../server/src/options.js';
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

export interface CliServer {
  readonly child: ChildProcess;
  readonly first: Record<string, unknown> & { url: string; node_pubkey: string };
  /** Lines printed after the first one (pino logs). */
  readonly lines: string[];
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `tsx server/src/main.ts ARGS` and waits (bounded) for its first stdout line. */
export function spawnCli(args: readonly string[], timeoutMs = 20_000): Promise<CliServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
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
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts', ...args], {
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
