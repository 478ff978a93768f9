/**
 * Shared pieces of the updater benchmarks: sizes from env vars (full size by default), a
 * table printer, and a child runner that reports peak RSS through /usr/bin/time -v.
 */
import { spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..');
export const CLI_ENTRY = resolve(REPO_ROOT, 'src/cli/main.ts');
export const MiB = 1024 * 1024;

/** A positive integer from the environment, or `fallback`. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer`);
  return value;
}

/** Prints rows as an aligned table with a title. */
export function printTable(title: string, rows: readonly (readonly [string, string])[]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\n${title}`);
  console.log('-'.repeat(title.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
}

export interface ChildRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly wallMs: number;
  /** Peak resident set size in bytes (GNU time "Maximum resident set size"), if measured. */
  readonly peakRssBytes: number | undefined;
  /** User + system CPU seconds of the command and its children (GNU time), if measured. */
  readonly cpuS: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command, under /usr/bin/time -v when available, and measures wall time. */
export function runMeasured(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; onSpawn?: (pid: number) => void } = {},
): Promise<ChildRun> {
  const timed = existsSync('/usr/bin/time');
  const file = timed ? '/usr/bin/time' : command;
  const argv = timed ? ['-v', command, ...args] : [...args];
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, argv, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
      const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
      resolvePromise({
        code,
        signal,
        wallMs: performance.now() - started,
        peakRssBytes: rss === null ? undefined : Number(rss[1]) * 1024,
        cpuS: user === null || system === null ? undefined : Number(user[1]) + Number(system[1]),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr,
      });
    });
  });
}

export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

export function mibPerS(bytes: number, ms: number): string {
  return `${(bytes / MiB / (ms / 1000)).toFixed(1)} MiB/s`;
}

/** Median and 95th percentile of samples (ms). */
export function percentiles(samples: readonly number[]): {
  median: number;
  p95: number;
  max: number;
} {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { median: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] ?? NaN };
}

/** Writes `size` random (incompressible) bytes to `path`, 8 MiB at a time. */
export async function writeRandomFile(path: string, size: number): Promise<void> {
  const handle = await open(path, 'w');
  const chunk = Buffer.alloc(8 * MiB);
  try {
    for (let done = 0; done < size; done += chunk.length) {
      randomFillSync(chunk);
      await handle.write(chunk, 0, Math.min(chunk.length, size - done));
    }
  } finally {
    await handle.close();
  }
}

/**
 * The previous round's tree of a many-file workload is moved aside, not removed, before the
 * next fresh install: on an ext4 without a journal (this machine's), every create within 60-300 s
 * of a mass removal steps over the inodes just freed, 10-15x the create's cost, and a contender
 * that starts creating in the same second as the removal skips that (docs/UPDATER.md §11.1,
 * The creates). Used by updater-peers.ts and network-peers.ts. No user's fresh install follows a removal of 10,000 files. Then the file
 * system is synced (untimed), so no contender's syncs write back what another left dirty (curl
 * never syncs; our batches' syncfs would write its files). The work directory is removed at
 * the end as before. RM_BETWEEN_ROUNDS=1 removes between rounds and does not sync, as before.
 */
export const RM_BETWEEN_ROUNDS = process.env.RM_BETWEEN_ROUNDS === '1';
let setAsideCount = 0;

/** Clears `path` for a fresh round: moved aside in `work` and synced, or removed (above). */
export async function clearForRound(work: string, path: string, manyFiles: boolean): Promise<void> {
  if (RM_BETWEEN_ROUNDS || !manyFiles) {
    await rm(path, { recursive: true, force: true });
    return;
  }
  await rename(path, join(work, `aside-${setAsideCount++}`)).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  });
  await runMeasured('sync', ['-f', work]);
}
