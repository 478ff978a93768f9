/**
 * The node HealthProbes (the core's port, src/core/ports.ts; docs/UPDATER.md §3, Health check):
 * a shell command run with the set's path in UPDATER_SET_PATH, or a function of the API. The
 * core owns the deadline and aborts `signal` at its end; the command is then killed with its
 * whole process tree (POSIX: its own process group; Windows: taskkill /T).
 */
import type { HealthProbe, HealthTarget, HealthVerdict } from '#core/ports.js';
import { childProcess } from './lazy-builtin.js';

/** How much of the command's stderr is kept for the reason (the tail: errors come last). */
const STDERR_TAIL_BYTES = 400;

/** A function health check of the API: resolve true (or nothing) = healthy, false or throw = not. */
export type HealthFunction = (set: {
  /** Absolute path of the set under probation (the live set). */
  readonly path: string;
  readonly version: string;
  /** Aborted at the deadline: stop what the check started. */
  readonly signal: AbortSignal;
}) => Promise<boolean | undefined> | boolean | undefined;

/** Environment variables the updater keeps from a health command (its secrets). */
const WITHHELD_ENV = [
  'UPDATER_MACHINE_KEY',
  'UPDATER_TEST_CRASH_AT',
  'UPDATER_TEST_WRITEBACK_BYTES',
];

export function functionProbe(check: HealthFunction, pathOf: (dir: string) => string): HealthProbe {
  return {
    async check(target: HealthTarget, signal: AbortSignal): Promise<HealthVerdict> {
      const ok = await check({ path: pathOf(target.dir), version: target.version, signal });
      return ok === false ? { ok: false, reason: 'the check returned false' } : { ok: true };
    },
  };
}

/**
 * Runs `command` through the shell with cwd and UPDATER_SET_PATH = the set's path (also
 * UPDATER_SET_VERSION, UPDATER_SET_ID). Exit 0 = healthy. stdout is discarded (the CLI's own
 * stdout is one JSON object); the stderr tail goes into the reason.
 */
export function commandProbe(
  command: string,
  pathOf: (dir: string) => string,
  platform: NodeJS.Platform = process.platform,
): HealthProbe {
  return {
    check(target: HealthTarget, signal: AbortSignal): Promise<HealthVerdict> {
      const path = pathOf(target.dir);
      return runCommand(command, path, commandEnv(target, path), platform, signal);
    },
  };
}

/** The command's environment: the updater's own, the set's names, without its secrets. */
function commandEnv(target: HealthTarget, path: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    UPDATER_SET_PATH: path,
    UPDATER_SET_VERSION: target.version,
    UPDATER_SET_ID: target.setId,
  };
  for (const name of WITHHELD_ENV) delete env[name];
  return env;
}

/** Spawns the command in `path` and resolves its verdict; `signal` kills its whole tree. */
function runCommand(
  command: string,
  path: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  signal: AbortSignal,
): Promise<HealthVerdict> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve({ ok: false, reason: 'aborted before it started' });
      return;
    }
    const child = childProcess().spawn(command, {
      shell: true,
      cwd: path,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      // POSIX: its own process group, so the whole tree can be killed at the deadline.
      detached: platform !== 'win32',
      windowsHide: true,
    });
    let tail = Buffer.alloc(0);
    child.stderr.on('data', (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > STDERR_TAIL_BYTES) tail = tail.subarray(tail.length - STDERR_TAIL_BYTES);
    });
    const kill = (): void => killTree(child.pid, platform);
    signal.addEventListener('abort', kill, { once: true });
    const done = (verdict: HealthVerdict): void => {
      signal.removeEventListener('abort', kill);
      child.stderr.destroy();
      resolve(verdict);
    };
    child.once('error', (error) =>
      done({ ok: false, reason: `the command could not start: ${error.message}` }),
    );
    child.once('exit', (code, killedBy) => {
      done(
        code === 0 ? { ok: true } : { ok: false, reason: exitReason(code, killedBy, tail, signal) },
      );
    });
  });
}

/** Why the command failed, with the last line it wrote to stderr. */
function exitReason(
  code: number | null,
  killedBy: NodeJS.Signals | null,
  tail: Buffer,
  signal: AbortSignal,
): string {
  const said = tail.toString('utf8').trim().split('\n').at(-1)?.trim() ?? '';
  const how = signal.aborted
    ? 'killed at the deadline'
    : killedBy !== null
      ? `killed by ${killedBy}`
      : `exited with code ${code ?? '?'}`;
  return `the command ${how}${said === '' ? '' : `: ${said}`}`;
}

function killTree(pid: number | undefined, platform: NodeJS.Platform): void {
  if (pid === undefined) return;
  try {
    if (platform === 'win32') {
      childProcess().spawn('taskkill', ['/pid', String(pid), '/T', '/F'], {
        stdio: 'ignore',
        windowsHide: true,
      });
    } else {
      process.kill(-pid, 'SIGKILL');
    }
  } catch {
    // Already gone.
  }
}
