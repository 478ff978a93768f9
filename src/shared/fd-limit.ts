/**
 * The process's soft limit on open files, read where the platform says it (Linux:
 * /proc/self/limits), so the connection cap can leave a reserve of descriptors for the
 * server's own files (docs/SERVER.md §Limits). Unknown elsewhere: the configured cap alone.
 */
import { readFileSync } from 'node:fs';

/** Parses the "Max open files" soft limit from /proc/self/limits text; undefined if absent. */
export function parseOpenFilesLimit(text: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  if (soft === undefined || !/^\d+$/.test(soft)) return undefined;
  return Number(soft);
}

/** The soft open-files limit of this process, or undefined where it cannot be read. */
export function openFilesLimit(): number | undefined {
  try {
    return parseOpenFilesLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The connection cap: `maxConnections`, lowered so that `fdReserve` descriptors stay free
 * under `nofile` (at least 1, so a tiny limit still serves one client at a time).
 */
export function connectionCap(
  maxConnections: number,
  fdReserve: number,
  nofile: number | undefined,
): number {
  if (nofile === undefined) return maxConnections;
  return Math.max(1, Math.min(maxConnections, nofile - fdReserve));
}

/**
 * The per-address cap under the connection cap `cap`: `perAddress` of `maxConnections`, in
 * the same proportion of `cap` when the reserve lowered it (so one address never gets the
 * whole budget), and never below one.
 */
export function addressCap(perAddress: number, maxConnections: number, cap: number): number {
  const share = cap < maxConnections ? Math.floor((perAddress * cap) / maxConnections) : perAddress;
  return Math.max(1, Math.min(cap, share));
}
