/**
 * Runs `updater serve` as it ships (the bundled CLI, dist/cli/updater.mjs, under plain node)
 * and reads the URL from its first stdout line. Used by the web window's e2e tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const CLI_BUNDLE = resolve(import.meta.dirname, '../../dist/cli/updater.mjs');

export interface ServeProcess {
  /** The printed URL, token included. */
  readonly url: string;
  /** http://HOST:PORT */
  readonly origin: string;
  readonly port: number;
  readonly child: ChildProcess;
  readonly stderr: () => string;
  /** SIGTERM, then the exit code once it has closed cleanly. */
  stop(): Promise<number | null>;
}

/** Spawns `node dist/cli/updater.mjs serve ARGS` (or another build's) and waits for its first line. */
export async function startServeProcess(
  args: readonly string[],
  env: Record<string, string> = {},
  bundle = CLI_BUNDLE,
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bundle, 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let err = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const first = await new Promise<string>((done, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', done);
    void exited.then((code) => fail(new Error(`serve exited ${String(code)}: ${err}`)));
  });
  const { url } = JSON.parse(first) as { url: string };
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    child,
    stderr: () => err,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
