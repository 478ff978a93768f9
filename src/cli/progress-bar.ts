/**
 * A one-line progress bar for a terminal: percent, bytes, rate and ETA. The CLI draws it on
 * stderr only when stderr is a TTY and --json is off (stdout stays machine-readable).
 */
import type { UpdateEvent } from '../core/events.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

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

/** Renders one line; pure so it can be tested. */
export function renderProgress(
  bytes: number,
  total: number,
  elapsedMs: number,
  artifact: string,
  width = 24,
): string {
  const ratio = total > 0 ? Math.min(1, bytes / total) : 1;
  const filled = Math.round(ratio * width);
  const rate = elapsedMs > 0 ? (bytes * 1000) / elapsedMs : 0;
  const eta = rate > 0 ? Math.ceil((total - bytes) / rate) : undefined;
  return (
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ` +
    `${formatBytes(bytes)}/${formatBytes(total)} ${formatBytes(Math.round(rate))}/s ` +
    `ETA ${eta === undefined ? '?' : `${eta}s`} ${artifact}`
  );
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
  let drawn = false;
  return {
    listener(event) {
      if (event.type !== 'progress') return;
      startMs ??= sink.nowMs();
      const line = renderProgress(event.bytes, event.total, sink.nowMs() - startMs, event.artifact);
      sink.write(`\r${line.slice(0, Math.max(10, sink.columns - 1))}\u001b[K`);
      drawn = true;
    },
    end() {
      if (drawn) sink.write('\n');
      drawn = false;
    },
  };
}
