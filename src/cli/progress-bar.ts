/**
 * A one-line progress bar for a terminal: percent, bytes, rate, ETA and the artifact. The CLI
 * draws it on stderr only when stderr is a TTY and --json is off (stdout stays machine-readable).
 * It fits the terminal's width (docs/UPDATER.md §7): what does not fit is dropped in a fixed
 * order (artifact name, bar, total, bytes), never cut mid-field, so a 40-column terminal still
 * shows the percent, the rate and the time left. The rate counts only bytes received from the
 * network in this run, never bytes resumed from a partial download or reused from local files.
 */
import type { UpdateEvent } from '#core/events.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** The bar's cells: at most this many (a wide terminal gets room for the name, not a huge bar). */
const MAX_BAR = 30;
/** Below this many cells the bar tells nothing and is left out. */
const MIN_BAR = 10;
/** A name shorter than this after truncation is left out. */
const MIN_NAME = 8;

/** 1536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** Seconds left, short: "42s", "3m05s", "2h07m", ">99h"; "?" when unknown. */
export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 100 * 3600) {
    return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  }
  return '>99h';
}

/** One progress reading. */
export interface ProgressSample {
  /** Bytes in hand (resumed and reused included): the percent. */
  readonly bytes: number;
  readonly total: number;
  /** Bytes received from the network in this run: the rate. */
  readonly received: number;
  /** Time since the first reading of this run. */
  readonly elapsedMs: number;
  readonly artifact: string;
}

/** "…" and the tail of `name` in `room` characters (the file name is at the end). */
function fitName(name: string, room: number): string {
  return name.length <= room ? name : `…${name.slice(name.length - room + 1)}`;
}

/** Renders one line of at most `columns - 1` characters (the last column would wrap); pure. */
export function renderProgress(sample: ProgressSample, columns: number): string {
  const width = Math.max(1, columns - 1);
  const { bytes, total, received, elapsedMs, artifact } = sample;
  const ratio = total > 0 ? Math.min(1, bytes / total) : 1;
  const rate = elapsedMs > 0 ? (received * 1000) / elapsedMs : 0;
  const eta = rate > 0 ? Math.max(0, total - bytes) / rate : undefined;
  const percent = `${Math.floor(ratio * 100)}%`;
  const speed = `${formatBytes(Math.round(rate))}/s`;
  const left = `ETA ${formatEta(eta)}`;
  const choices = [
    [percent, `${formatBytes(bytes)}/${formatBytes(total)}`, speed, left],
    [percent, formatBytes(bytes), speed, left],
    [percent, speed, left],
    [percent],
  ];
  const stats =
    choices.map((c) => c.join(' ')).find((line) => line.length <= width) ?? percent.slice(0, width);
  let room = width - stats.length;
  // The bar first (it reads at a glance), as long as it leaves the name its place.
  let bar = '';
  if (room >= MIN_BAR + 3) {
    const cells = Math.min(MAX_BAR, Math.max(MIN_BAR, room - 3 - (artifact.length + 1)));
    const filled = Math.round(ratio * cells);
    bar = `[${'#'.repeat(filled)}${'-'.repeat(cells - filled)}] `;
    room -= bar.length;
  }
  const name = room - 1 >= Math.min(MIN_NAME, artifact.length) ? fitName(artifact, room - 1) : '';
  return `${bar}${stats}${name === '' ? '' : ` ${name}`}`;
}

export interface ProgressSink {
  readonly write: (text: string) => void;
  readonly columns: number;
  readonly nowMs: () => number;
}

/** Returns an event listener drawing the bar on `sink`, and a function ending the line. */
export function progressBar(sink: ProgressSink): {
  listener: (event: UpdateEvent) => void;
  end: () => void;
} {
  let startMs: number | undefined;
  let firstBytes = 0;
  let drawn = false;
  return {
    listener(event) {
      if (event.type !== 'progress') return;
      if (startMs === undefined) {
        startMs = sink.nowMs();
        firstBytes = event.bytes;
      }
      // Without `received` (an older emitter), what arrived since the first reading.
      const received = event.received ?? Math.max(0, event.bytes - firstBytes);
      const line = renderProgress(
        {
          bytes: event.bytes,
          total: event.total,
          received,
          elapsedMs: sink.nowMs() - startMs,
          artifact: event.artifact,
        },
        sink.columns,
      );
      sink.write(`\r${line}\u001b[K`);
      drawn = true;
    },
    end() {
      if (drawn) sink.write('\n');
      drawn = false;
    },
  };
}
