/**
 * The `sync -f DIR` of each syncfs batch (fs-sync.ts) run by one long-lived `/bin/sh` per store
 * instead of a fork of node per batch (docs/UPDATER.md §3, Durability). Forking node, a large
 * process, stalled its main thread at every batch (docs/UPDATER.md §10.3); the shell is forked
 * once, and forks each `sync` from a small process.
 *
 * No shell injection: the script is a constant; the command and its arguments reach it as
 * data, one per line on its stdin (a count, the file, then each argument), and it runs them as
 * `"$f" "$@"` without ever interpolating them into a command line. A command or an argument
 * holding a newline (which cannot be sent as one line) is run by `execFileRunner` instead.
 * The shell answers each command with its exit status on one line.
 *
 * The answers keep `execFileRunner`'s contract, so FsSync's fallbacks stay as they were: an
 * exit status of 127 (not found) or 126 (not executable) is ENOENT or EACCES (the `sync`
 * could not be started: the next path is tried); another status is that status; no answer
 * within the timeout kills the shell (the error's `killed` is set; a `sync` already running
 * is left to finish by itself, as harmless as any other sync); a shell that dies, or cannot be
 * written to, fails every command waiting for it. If `/bin/sh` itself cannot be started,
 * every command runs through `execFileRunner`.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { errno } from './fs-errors.js';
import { execFileRunner, type CommandRunner } from './fs-sync.js';
import { childProcess } from '../lazy-builtin.js';

/** Absolute: never a PATH lookup. */
export const SHELL = '/bin/sh';

/** Reads `count`, file, `count` arguments; runs them quietly; prints the exit status. */
const SCRIPT =
  'while IFS= read -r n; do IFS= read -r f || exit; set --; ' +
  'while [ "$#" -lt "$n" ]; do IFS= read -r a || exit; set -- "$@" "$a"; done; ' +
  '"$f" "$@" </dev/null >/dev/null 2>&1; echo "$?"; done';

interface Waiting {
  readonly file: string;
  readonly args: readonly string[];
  readonly timeoutMs: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** The error a command's answer maps to (execFileRunner's contract), or undefined on 0. */
function answerError(file: string, status: number): Error | undefined {
  if (status === 0) return undefined;
  const code = status === 127 ? 'ENOENT' : status === 126 ? 'EACCES' : status;
  return Object.assign(new Error(`${file} failed (${String(code)})`), { code });
}

interface Holdable {
  ref(): unknown;
  unref(): unknown;
}

function holdable(handle: object): handle is Holdable {
  const h = handle as Partial<Holdable>;
  return typeof h.ref === 'function' && typeof h.unref === 'function';
}

export class SyncCoprocess {
  private child: ChildProcessWithoutNullStreams | undefined;
  /** Commands sent and not answered, in the order the shell answers them. */
  private readonly waiting: Waiting[] = [];
  private received = '';
  /** `/bin/sh` could not be started: every command runs through execFileRunner. */
  private noShell = false;

  constructor(
    private readonly shell: string = SHELL,
    private readonly fallback: CommandRunner = execFileRunner,
  ) {}

  /** The CommandRunner (fs-sync.ts) over this co-process. */
  readonly run: CommandRunner = (file, args, timeoutMs) => {
    const lines = [String(args.length), file, ...args];
    if (this.noShell || lines.some((line) => /[\n\r\0]/.test(line))) {
      return this.fallback(file, args, timeoutMs);
    }
    return new Promise<void>((resolve, reject) => {
      const child = this.started();
      const timer = setTimeout(() => {
        this.fail(child, Object.assign(new Error(`${file} timed out`), { killed: true }));
      }, timeoutMs);
      this.waiting.push({ file, args, timeoutMs, resolve, reject, timer });
      this.hold(child, true);
      child.stdin.write(`${lines.join('\n')}\n`);
    });
  };

  /** Ends the shell once it is idle (at the end of a pull); the next command starts another. */
  release(): void {
    const child = this.child;
    if (child === undefined || this.waiting.length > 0) return;
    this.child = undefined;
    child.stdin.end();
  }

  private started(): ChildProcessWithoutNullStreams {
    if (this.child !== undefined) return this.child;
    const child = childProcess().spawn(this.shell, ['-c', SCRIPT], {
      stdio: 'pipe',
      env: {},
      windowsHide: true,
    });
    this.child = child;
    // First: a spawn that failed reports it as an 'error' event, which must have a listener.
    child.on('error', (error) => {
      const code = errno(error);
      if (code === 'ENOENT' || code === 'EACCES') this.noShell = true;
      this.fail(child, error);
    });
    child.on('exit', (code, signal) => {
      this.fail(child, new Error(`the sync shell exited (${String(signal ?? code)})`));
    });
    // No descriptors left for its pipes (EMFILE): node hands back a child without them, and
    // its 'error' event follows; this command fails now (then each blob is fsynced).
    const pipes: unknown[] = [child.stdout, child.stdin];
    if (pipes.some((pipe) => pipe === null || pipe === undefined)) {
      throw new Error('the sync shell could not be started: no pipes');
    }
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => this.answered(child, text));
    child.stdin.on('error', (error) => this.fail(child, error));
    this.hold(child, false);
    return child;
  }

  /** Whether the shell keeps node's event loop alive: only while a command waits for it. */
  private hold(child: ChildProcessWithoutNullStreams, waiting: boolean): void {
    // The pipes are net.Socket objects, typed as plain streams.
    for (const handle of [child, child.stdout, child.stdin] as readonly object[]) {
      if (!holdable(handle)) continue;
      if (waiting) handle.ref();
      else handle.unref();
    }
  }

  private answered(child: ChildProcessWithoutNullStreams, text: string): void {
    this.received += text;
    for (let end = this.received.indexOf('\n'); end >= 0; end = this.received.indexOf('\n')) {
      const line = this.received.slice(0, end);
      this.received = this.received.slice(end + 1);
      const next = this.waiting.shift();
      if (next === undefined) continue;
      clearTimeout(next.timer);
      const error = answerError(next.file, /^\d+$/.test(line) ? Number(line) : -1);
      if (error === undefined) next.resolve();
      else next.reject(error);
    }
    if (this.waiting.length === 0) this.hold(child, false);
  }

  /**
   * The shell is gone (or given up): every command waiting fails with `error`, and the next
   * command starts a new shell. When the shell itself could not be started, the commands
   * waiting run through the fallback instead.
   */
  private fail(child: ChildProcessWithoutNullStreams, error: Error): void {
    child.kill('SIGKILL');
    // A released shell that exits had nothing waiting: the commands waiting are another's.
    if (this.child !== child) return;
    this.child = undefined;
    this.received = '';
    for (const next of this.waiting.splice(0)) {
      clearTimeout(next.timer);
      if (this.noShell) {
        this.fallback(next.file, next.args, next.timeoutMs).then(next.resolve, next.reject);
      } else {
        next.reject(error);
      }
    }
  }
}
