/** Formatting for the window: times relative to now, byte counts. Pure, so unit-tested. */

/** "just now", "in 3 min", "5 min ago", "2 h ago"; "never" / "not scheduled" for null. */
export function relativeTime(atMs: number | null, nowMs: number, none: string): string {
  if (atMs === null) return none;
  const deltaS = Math.round((atMs - nowMs) / 1000);
  const abs = Math.abs(deltaS);
  if (abs < 10) return 'just now';
  // Units chosen after rounding, so 3599 s reads "1 h", not "60 min".
  const minutes = Math.round(abs / 60);
  const hours = Math.round(abs / 3600);
  let text: string;
  if (abs < 60) text = `${abs} s`;
  else if (minutes < 60) text = `${minutes} min`;
  else if (hours < 24) text = `${hours} h`;
  else text = `${Math.round(abs / 86_400)} d`;
  return deltaS > 0 ? `in ${text}` : `${text} ago`;
}

/** 1 KiB = 1024 bytes; one decimal above bytes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit] ?? 'TiB'}`;
}

/** Bar width in percent of the leader's count; a non-zero count is never drawn as empty. */
export function barPercent(count: number, max: number): number {
  if (max <= 0 || count <= 0) return 0;
  return Math.max(2, Math.round((count * 100) / max));
}
