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

/**
 * 1 KiB = 1024 bytes; one decimal above bytes. A value of 1000 or more moves up a unit, so a
 * figure never takes five digits ("0.98 MiB/s", not "1006.0 KiB/s"); below 1, two decimals.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 1 ? 2 : 1)} ${units[unit] ?? 'TiB'}`;
}

/** Bar width in percent of the leader's count; a non-zero count is never drawn as empty. */
export function barPercent(count: number, max: number): number {
  if (max <= 0 || count <= 0) return 0;
  return Math.max(2, Math.round((count * 100) / max));
}

/** Whole numbers with the locale's thousands separators ("12,345" in English). */
export function formatCount(count: number, locale: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(count);
}

/**
 * What the ranking counts and over what window, in plain words, the window in units and in
 * seconds from the registry's `unit_ms` (docs/PROTOCOL.md "Time unit"):
 * "state changes per machine, last 60 units ≈ 47 s". Long windows read in minutes.
 */
export function windowWords(units: number, unitMs: number): string {
  const unitWord = units === 1 ? 'unit' : 'units';
  const head = `state changes per machine, last ${units} ${unitWord}`;
  if (!(unitMs > 0)) return head;
  const seconds = Math.round((units * unitMs) / 1000);
  const span = seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
  return `${head} ≈ ${span}`;
}

/**
 * Short counts for a narrow column ("12M", "1.2K", "844K"); the exact figure goes in the label.
 * One decimal at most and three digits at most, whichever is shorter: "843.8K" would not fit
 * the column.
 */
export function formatCompact(count: number, locale: string): string {
  return new Intl.NumberFormat(locale, {
    notation: 'compact',
    maximumFractionDigits: 1,
    maximumSignificantDigits: 3,
    roundingPriority: 'lessPrecision',
  }).format(count);
}

/**
 * The width of the count column in `ch`: 5 holds every English compact count ("13.5M"), but
 * other locales write longer ones ("13,5 Mio.", "844 тыс."), so the column takes the longest.
 */
export function countColumnCh(counts: readonly number[], locale: string): number {
  return counts.reduce((widest, count) => Math.max(widest, formatCompact(count, locale).length), 5);
}

/**
 * Standard competition ranks ("1224"): equal counts share a rank, and the next count's rank
 * counts everyone ahead of it. `counts` are in ranking order (highest first).
 */
export function competitionRanks(counts: readonly number[]): number[] {
  const ranks: number[] = [];
  counts.forEach((count, index) => {
    const previous = index > 0 ? counts[index - 1] : undefined;
    ranks.push(previous === count ? (ranks[index - 1] ?? index + 1) : index + 1);
  });
  return ranks;
}

/**
 * Wraps text from the network in FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE (Unicode
 * UAX #9 §2.7), so a name carrying U+202E cannot reverse the words around it in a sentence
 * such as an accessible label. Visible names use <bdi> for the same reason.
 */
export function isolate(text: string): string {
  return `\u2068${text}\u2069`;
}

/** A wall-clock time such as "14:03:12"; '' when the timestamp cannot be read. */
export function clockTime(iso: string, locale: string): string {
  const atMs = Date.parse(iso);
  if (Number.isNaN(atMs)) return '';
  return new Intl.DateTimeFormat(locale, { timeStyle: 'medium' }).format(atMs);
}

/** A duration in words: "5 s", "2 min", "1 h 5 min". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/**
 * The next check as a live countdown: "in 45 s" under two minutes (refreshed every second),
 * "due now" once passed, else as relativeTime. `none` for null.
 */
export function countdown(atMs: number | null, nowMs: number, none: string): string {
  if (atMs === null) return none;
  const seconds = Math.ceil((atMs - nowMs) / 1000);
  if (seconds <= 0) return 'due now';
  if (seconds < 120) return `in ${seconds} s`;
  return relativeTime(atMs, nowMs, none);
}
