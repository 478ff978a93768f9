/**
 * What the operating system tells about processes and the boot, as one injected record so the
 * lock (lock-file.ts) is tested as it behaves on Linux, macOS and Windows from any machine
 * (docs/UPDATER.md §8, the per-OS lock guarantee):
 * - every OS: whether a PID exists (`process.kill(pid, 0)`: ESRCH gone, EPERM exists), the
 *   host name, and the boot time as `now - os.uptime()` (coarse: whole seconds, and it moves
 *   with the wall clock);
 * - Linux only: the boot id (`/proc/sys/kernel/random/boot_id`, new at every boot) and a
 *   process's start time (`/proc/<pid>/stat` field 22, clock ticks since boot), which together
 *   tell a reused PID from the holder exactly.
 */
import { readFileSync } from 'node:fs';
import { hostname, uptime } from 'node:os';

export interface OsFacts {
  /** This process. */
  readonly pid: number;
  hostname(): string;
  /** Linux: the kernel's boot id; undefined where the OS has none. */
  bootId(): string | undefined;
  /** Epoch milliseconds of the last boot (`now - os.uptime()`). */
  bootTimeMs(): number;
  /** Linux: the start time of `pid` in clock ticks since boot; undefined elsewhere or gone. */
  startTime(pid: number): string | undefined;
  /** False only when the OS says no such process (ESRCH). */
  processExists(pid: number): boolean;
  nowMs(): number;
}

/** Linux's /proc/<pid>/stat field 22, or undefined (no /proc, or no such process). */
export function procStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Linux's boot id, or undefined. */
export function procBootId(): string | undefined {
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return id === '' ? undefined : id;
  } catch {
    return undefined;
  }
}

/** `process.kill(pid, 0)`: only ESRCH means gone (EPERM: it exists, as another user's). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The facts of the machine this process runs on. */
export const systemOsFacts: OsFacts = {
  pid: process.pid,
  hostname: () => hostname(),
  bootId: procBootId,
  bootTimeMs: () => Date.now() - uptime() * 1000,
  startTime: procStartTime,
  processExists: pidExists,
  nowMs: () => Date.now(),
};
